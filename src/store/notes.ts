// The Store's notes section: the note writes and reads every endpoint of notes makes. Every query takes the owner's
// id, so no driver call can reach another user's note. Each driver implements it in its notes.ts.
import type { CheckedVersions } from './sessions.js'
import type { NotePatch, NoteRecord } from '../note-shape.js'

/**
 * What one account may keep, enforced atomically with the write (0: no limit); sizes: UTF-8 bytes of title, content,
 * tags. A store holds to the quota it was opened with (limits.ts).
 */
export interface NoteQuota {
  notes: number
  bytes: number
}

/** An account's notes and their size, kept by the database itself (triggers on notes). */
export type NoteUsage = NoteQuota

/** What a note write requires and keeps (docs/history.md); the quota and the revisions kept are the store's (limits.ts). */
export interface NoteWriteTerms {
  /** If-Match: the write applies only while the note's updatedOn is one of these; undefined: whatever it is. */
  expected?: readonly string[] | undefined
  /** The id the revision this write may keep takes. */
  revisionId: string
}

/** A note write's outcome: the note after it, the current note when `expected` did not hold (nothing changed), or undefined when absent. */
export type NoteWrite = { note: NoteRecord } | { conflict: NoteRecord } | undefined

/** What deleting a note does with it. */
export interface NoteDeletion {
  expected?: readonly string[] | undefined
  /** When it moves to the trash; undefined: erased at once with its history (TRASH_DAYS=0). */
  trashedOn: string | undefined
}

/** A JSON text to send: a driver's string, or the UTF-8 bytes the cache layer keeps (docs/performance.md, "Memory"). */
export type JsonText = string | Buffer

export interface NoteStore {
  /** Inserts the note; false when its account is gone. NoteQuotaExceededError (nothing stored): past the store's quota. */
  insertNote(note: NoteRecord): Promise<boolean>
  findNote(userId: string, noteId: string): Promise<NoteRecord | undefined>
  /**
   * Applies the patch, sets updatedOn to nextVersion(its stored value, `now`) and, when the title, content or tags
   * change, keeps the state before as a revision. NoteQuotaExceededError('bytes'): grown past the store's quota.
   */
  updateNote(userId: string, noteId: string, patch: NotePatch, now: string, terms: NoteWriteTerms): Promise<NoteWrite>
  /** Moves the note to the trash (or erases it) and resolves to it as it was; over the byte quota, the oldest kept go. */
  deleteNote(userId: string, noteId: string, deletion: NoteDeletion): Promise<NoteWrite>
  /**
   * GET /get-all-notes' JSON text: the notes in list order (list-order.ts), keys in the note's order. Kept bytes are
   * handed out again: never modify them. `checked`: this request's SessionOfAccount.checked.
   */
  listNotesJson(userId: string, checked?: CheckedVersions): Promise<JsonText>
  /** The account's usage as the database keeps it; undefined when no account has this id. */
  noteUsage(userId: string): Promise<NoteUsage | undefined>
}
