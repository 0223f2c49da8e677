// What every storage driver implements and the cache layer (cache/) wraps; the rules live in src/services.
// Every note query takes the owner's id, so no driver call can reach another user's note.
import type { SearchPlan } from './search-index.js'
import type { NoteField, RevisionField, TrashedNoteField } from './note-differences.js'
import type { NotePatch, NoteRecord, RevisionRecord, StoredRevisionRecord, TrashedNoteRecord } from '../note-shape.js'

export type { NotePatch, NoteRecord, RevisionRecord, StoredRevisionRecord, TrashedNoteRecord }

/** A user as stored. `emailKey` is the unique normalised email (emailKeyOf: trimmed, NFKC, lower-case). */
export interface UserRecord {
  _id: string
  fullName: string
  email: string
  emailKey: string
  passwordHash: string
  /** ISO 8601, UTC. */
  createdOn: string
  /** A token without a session issued before this is refused (docs/accounts.md); it only moves later. */
  tokensNotBefore?: string
}

/** One signed-in session, named by its tokens' `sid` claim: deleting the row ends them everywhere. */
export interface SessionRecord {
  _id: string
  userId: string
  createdOn: string
  /** To within SESSION_TOUCH_INTERVAL_MS (services/sessions.ts). */
  lastUsedOn: string
  /** The client's User-Agent, trimmed to at most 200 characters; '' when it sent none. */
  client: string
}

/** A session and its account, as one lookup finds them (Store.findSession). */
export interface SessionOfAccount {
  session: SessionRecord
  user: UserRecord
  /** Set by the cache layer when this lookup read the user's versions (Store.listNotesJson). */
  checked?: CheckedVersions
}

/** The brand of CheckedVersions: declared, never exported, so no code can write one down. */
declare const madeByLookup: unique symbol

/**
 * Proof that the cache layer read a user's versions for one request's session lookup, passed on to its listing
 * (Store.listNotesJson), which then needs no read of its own. Opaque: the cache layer accepts only its own.
 */
export interface CheckedVersions {
  readonly [madeByLookup]: true
}

/** What may change in an account (Store.updateUser); absent fields are left alone. */
export type AccountChange = Partial<Pick<UserRecord, 'fullName' | 'passwordHash'>> & {
  /**
   * The hash a new `passwordHash` replaces, as the caller verified the current password against it: the change is
   * made only while it is still the stored one, else PasswordReplacedError (docs/accounts.md, "Concurrent password changes").
   */
  replacing?: string
}

/** Tokens to end with an account change: "not before" moves to `notBefore`, sessions end (all but `keep`). */
export interface Revocation {
  notBefore: string
  /** false: no session ends (a logout with a token that names none). */
  endSessions: boolean
  /** With endSessions, the one session that stays (change-password keeps the caller's). */
  keep?: string
}

/** Who makes an account write: it commits only while this token is admitted (docs/accounts.md, "Revocation is final"). */
export interface Actor {
  sessionId: string | undefined
  /** The token's `iat` as toISOString writes it, so the text compares as the time. */
  issuedAt: string
}

/** Which sessions of an account a new one pushes out (Store.createSession). */
export interface SessionPruning {
  /** Sessions created before this (ISO 8601) have outlived their tokens and are deleted. */
  createdBefore: string
  /** Of the rest, only this many are kept, the new one included: the most recently used. */
  keepMost: number
}

/** What one account may keep, enforced atomically with the write (0: no limit); sizes: UTF-8 bytes of title, content, tags. */
export interface NoteQuota {
  notes: number
  bytes: number
}

/** What a note write requires and keeps (docs/history.md). */
export interface NoteWriteTerms {
  quota?: NoteQuota | undefined
  /** If-Match: the write applies only while the note's updatedOn is one of these; undefined: whatever it is. */
  expected?: readonly string[] | undefined
  /** The newest revisions kept of each note (HISTORY_REVISIONS); 0: none is kept. */
  keepRevisions: number
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
  quota?: NoteQuota | undefined
}

/** What the retention sweep erases for good (services/retention.ts). */
export interface SweepCutoffs {
  /** Notes trashed before this. */
  trashedBefore: string
  /** Revisions replaced before this. */
  replacedBefore: string
  /** Of each note's revisions, the newest this many stay (HISTORY_REVISIONS): no answer lists more, and the sweep erases the rest. */
  keepRevisions: number
  /** The change feed's record of notes gone (trashed or erased) before this; the account's older cursors expire. */
  changedBefore: string
}

/** What one sweep erased. */
export interface Swept {
  notes: number
  revisions: number
  changes: number
}

/** A note's latest change as the account's change feed keeps it (docs/sync.md). */
export interface FeedChange {
  /** The change's number in the account's feed: increasing in the order the changes committed. */
  seq: number
  noteId: string
  /** The note's stored JSON, as the listing sends it; null: the note has left the listing (trashed or erased). */
  json: string | null
}

/** A page of an account's change feed, read in one snapshot with the feed's state. */
export interface ChangePage {
  /** Drawn when the account's feed was made: a number means something only with its epoch. */
  epoch: string
  /** The number of the account's latest change (0: none yet). */
  head: number
  /** Changes numbered at or below this may have been erased: a cursor below it cannot be served. */
  floor: number
  /** In number order, at most the limit asked. */
  changes: FeedChange[]
}

/** An account's notes and their size, kept by the database itself (triggers on notes). */
export type NoteUsage = NoteQuota

/** What search tests of a note: its title and its content, each on its own. */
export type SearchText = Pick<NoteRecord, 'title' | 'content'>

/** A search pattern as the store sees it: it reads the candidates in list order, a chunk at a time (search-chunks.ts). */
export interface TextMatcher {
  /** The ascending indexes of the matching notes; rejects with the error that answers the request. */
  matchPage(notes: readonly SearchText[]): Promise<number[]>
  /** What every match holds (services/search-plan.ts): notes the index does not name may be left out. */
  readonly plan?: SearchPlan
  /** What is left of the search's budget, in ms; throws the answer of a search past it (the 400). */
  timeLeft(): number
  /** Throws the answer of a search past its budget: for a store that ended a statement at timeLeft(). */
  outOfTime(): never
}

/** What Store.buildSearchIndex found: nothing to build, a build done, one under way elsewhere, or no index possible (why). */
export type SearchIndexBuilt = 'ready' | 'built' | 'elsewhere' | { unavailable: string }

/** What importing one user did (src/transfer): kept ids make a second run change nothing. */
export type UserImportOutcome = 'inserted' | 'exists' | 'duplicate-email'
/**
 * What importing one note did; `{differs}`: its _id is stored with other fields (note-differences.ts); 'in-trash': a
 * trashed note has its _id (a note is live or trashed, never both).
 */
export type NoteImportOutcome = 'inserted' | 'exists' | 'missing-user' | 'in-trash' | { differs: NoteField[] }
/** What importing one trashed note did: as for a note; 'live': a live note has its _id. */
export type TrashImportOutcome = 'inserted' | 'exists' | 'missing-user' | 'live' | { differs: TrashedNoteField[] }
/**
 * What importing one revision did: as for a note, `{differs}` when its note already keeps a revision with its _id or its
 * editedOn (a note has one state per version); 'missing-note': its user has no note, live or trashed, with its noteId.
 */
export type RevisionImportOutcome = 'inserted' | 'exists' | 'missing-user' | 'missing-note' | { differs: RevisionField[] }

/** A revision's place in note_revisions' key order: a history is one range of it (Store.revisionsAfter). */
export type RevisionKey = Pick<StoredRevisionRecord, 'noteId' | 'editedOn' | '_id'>

/** A JSON text to send: a driver's string, or the UTF-8 bytes the cache layer keeps (docs/performance.md, "Memory"). */
export type JsonText = string | Buffer

export interface Store {
  /** Inserts the user and its first session in one transaction; false (nothing stored) when the email key is taken. */
  createUser(user: UserRecord, session?: SessionRecord): Promise<boolean>
  findUserByEmailKey(emailKey: string): Promise<UserRecord | undefined>
  /** `fresh`: read from the database, never from what the cache layer keeps (as findSession). */
  findUserById(id: string, fresh?: boolean): Promise<UserRecord | undefined>
  /**
   * Applies the change and the revocation in one transaction: the account as stored, or undefined
   * when absent. With an actor no longer admitted, rejects with SessionEndedError, changing nothing; with a
   * `replacing` hash no longer stored, with PasswordReplacedError, changing nothing.
   */
  updateUser(userId: string, change: AccountChange, revocation?: Revocation, actor?: Actor): Promise<UserRecord | undefined>
  /** Deletes the account, its notes and its sessions in one transaction; false when absent. Actor: as updateUser. */
  deleteUser(userId: string, actor?: Actor): Promise<boolean>

  // Sessions (docs/accounts.md). Every session query but findSession takes the owner's id.
  /** Inserts the session and deletes those `prune` pushes out, in one transaction; false when the account is gone. */
  createSession(session: SessionRecord, prune: SessionPruning): Promise<boolean>
  /**
   * The session and its account in one lookup: what the authenticate hook asks on every request. `fresh`: read from
   * the database, never from what the cache layer keeps, which on PostgreSQL lags another instance's change until its
   * notice arrives (a live update stream told that its account's sessions changed).
   */
  findSession(sessionId: string, fresh?: boolean): Promise<SessionOfAccount | undefined>
  /** Sets lastUsedOn when the stored value is earlier than `staleBefore` (else nothing). */
  touchSession(sessionId: string, lastUsedOn: string, staleBefore: string): Promise<void>
  /** The account's sessions created at or after `createdSince`: newest lastUsedOn first, then createdOn, then _id descending. */
  listSessions(userId: string, createdSince: string): Promise<SessionRecord[]>
  /** Deletes the account's session; false when it has no session with this id. Actor: as updateUser. */
  deleteSession(userId: string, sessionId: string, actor?: Actor): Promise<boolean>

  /** Inserts the note; false when its account is gone. NoteQuotaExceededError (nothing stored): past the quota. */
  insertNote(note: NoteRecord, quota?: NoteQuota): Promise<boolean>
  findNote(userId: string, noteId: string): Promise<NoteRecord | undefined>
  /**
   * Applies the patch, sets updatedOn to nextVersion(its stored value, `now`) and, when the title, content or tags
   * change, keeps the state before as a revision. NoteQuotaExceededError('bytes'): grown past the quota.
   */
  updateNote(userId: string, noteId: string, patch: NotePatch, now: string, terms: NoteWriteTerms): Promise<NoteWrite>
  /** Moves the note to the trash (or erases it) and resolves to it as it was. */
  deleteNote(userId: string, noteId: string, deletion: NoteDeletion): Promise<NoteWrite>

  // Trash and history (docs/history.md): every query takes the owner's id.
  /** The account's trash, most recently deleted first. */
  listTrash(userId: string): Promise<TrashedNoteRecord[]>
  /** Moves a trashed note back with updatedOn = nextVersion(it, now): the note, or undefined when not in the trash. Quota: as insertNote. */
  restoreNote(userId: string, noteId: string, now: string, quota?: NoteQuota): Promise<NoteRecord | undefined>
  /** Erases trashed notes for good, with their history (all of the account's when `noteId` is undefined): how many. */
  eraseTrash(userId: string, noteId?: string): Promise<number>
  /** The revisions of a note, live or trashed, newest first, at most `limit`; undefined when the account has no such note. */
  noteHistory(userId: string, noteId: string, limit: number): Promise<RevisionRecord[] | undefined>
  /** Erases what the cutoffs name, in batches, safe to run on many instances at once: how many trashed notes and revisions. */
  sweep(cutoffs: SweepCutoffs): Promise<Swept>
  /**
   * The account's changes numbered after `since`, up to `limit`, in number order; without `since`, only its live notes
   * (what a first listing needs). Undefined when no account has this id.
   */
  changesSince(userId: string, since: number | undefined, limit: number): Promise<ChangePage | undefined>
  /**
   * GET /get-all-notes' JSON text: the notes in list order (list-order.ts), keys in the note's order. Kept bytes are
   * handed out again: never modify them. `checked`: this request's SessionOfAccount.checked.
   */
  listNotesJson(userId: string, checked?: CheckedVersions): Promise<JsonText>
  /** The user's notes whose title or content the matcher accepts, in listNotesJson's order, as JSON text like it: what GET /search-notes sends. */
  searchNotesJson(userId: string, matcher: TextMatcher): Promise<string>
  /**
   * Builds search's index for the notes stored before it (docs/search.md, "Building the index"), calling `progress`
   * with the share done; search reads every note until it is complete. Resumes a build another process stopped.
   */
  buildSearchIndex(progress: (fraction: number) => void): Promise<SearchIndexBuilt>

  // Bulk transfer (notes-service import / export). Records keep their own ids, hashes and dates.
  /** Inserts the users in one transaction: 'exists' (same _id), 'duplicate-email' or 'inserted', each. */
  importUsers(users: UserRecord[]): Promise<UserImportOutcome[]>
  /** Inserts the notes in one transaction: 'exists' or `{differs}` (same _id), 'missing-user' or 'inserted', each. */
  importNotes(notes: NoteRecord[]): Promise<NoteImportOutcome[]>
  /** Keyset page for export: up to `limit` users with _id > afterId (from the first when undefined), _id ascending. */
  usersAfter(afterId: string | undefined, limit: number): Promise<UserRecord[]>
  /** Keyset page for export: up to `limit` notes with _id > afterId, _id ascending; only userId's notes when given. */
  notesAfter(afterId: string | undefined, limit: number, userId?: string): Promise<NoteRecord[]>
  /** Inserts the trashed notes in one transaction, each kept as a deletion keeps it (its bytes counted): an outcome each. */
  importTrash(notes: TrashedNoteRecord[]): Promise<TrashImportOutcome[]>
  /** Inserts the revisions in one transaction, each kept as an edit keeps it; their notes come first: an outcome each. */
  importRevisions(revisions: StoredRevisionRecord[]): Promise<RevisionImportOutcome[]>
  /** Keyset page for export, as notesAfter, of the trash. */
  trashAfter(afterId: string | undefined, limit: number, userId?: string): Promise<TrashedNoteRecord[]>
  /**
   * Keyset page for export of every note's revisions (those of trashed notes too), in note_revisions' key order: up to
   * `limit` after `after` (from the first when undefined), only userId's when given.
   */
  revisionsAfter(after: RevisionKey | undefined, limit: number, userId?: string): Promise<StoredRevisionRecord[]>

  /** The account's usage as the database keeps it; undefined when no account has this id. */
  noteUsage(userId: string): Promise<NoteUsage | undefined>
  /** How many accounts keep more than the quota allows (an import is not held to it). */
  accountsOverQuota(quota: NoteQuota): Promise<number>

  /** Resolves when the store answers a trivial query (readiness). */
  ping(): Promise<void>
  close(): Promise<void>
}

/** A user's versions, moved by triggers in every change's transaction: equal only while nothing changed. */
export interface UserVersions {
  /** Covers the user's notes; null: the database keeps none for this user now, and nothing may be kept. */
  notes: string | null
  /** Covers the account's row and its sessions. */
  account: string
}

/** What a driver implements: the Store, and the versions the cache layer (cache/) checks. */
export interface StoreDriver extends Store {
  /** The versions of these users as one read sees them; a user without an account is absent. */
  userVersions(userIds: readonly string[]): Promise<Map<string, UserVersions>>
  /** SQLite's version_clock: while it stands, earlier userVersions reads hold (PostgreSQL has none: docs/caching.md). */
  versionClock?(): Promise<string>
}

/** Store.updateUser's `replacing` hash is no longer the stored one: another change of the password came first. */
export class PasswordReplacedError extends Error {
  constructor() {
    super('the password was changed meanwhile')
    this.name = 'PasswordReplacedError'
  }
}

/** Thrown by a driver when its database cannot be reached; answered with 503. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError'
}

/** An account write's actor is no longer admitted: nothing changed, and the answer is the bare 401. */
export class SessionEndedError extends Error {
  constructor() {
    super('the session ended before the write')
    this.name = 'SessionEndedError'
  }
}

/** The account is at its note quota (Store.insertNote, Store.updateNote); answered with 403. */
export class NoteQuotaExceededError extends Error {
  constructor(readonly limit: 'notes' | 'bytes') {
    super(`note quota reached (${limit})`)
    this.name = 'NoteQuotaExceededError'
  }
}

/** A SQLite write while the data directory has less free space than the minimum; answered with 507. */
export class LowDiskSpaceError extends Error {
  constructor(readonly minFreeBytes: number) {
    super(`less than ${minFreeBytes} bytes free`)
    this.name = 'LowDiskSpaceError'
  }
}
