// The Store's trash and history section (docs/history.md): every query takes the owner's id. Each driver implements
// it in its trash-history.ts.
import type { NoteRecord, RevisionRecord, TrashedNoteRecord } from '../note-shape.js'

/** What the retention sweep erases for good (services/retention.ts). */
export interface SweepCutoffs {
  /** Notes trashed before this. */
  trashedBefore: string
  /** Revisions replaced before this (and, whenever replaced, those past the newest keepRevisions the store keeps: limits.ts). */
  replacedBefore: string
  /** The change feed's record of notes gone (trashed or erased) before this; the account's older cursors expire. */
  changedBefore: string
}

/** What one sweep erased. */
export interface Swept {
  notes: number
  revisions: number
  changes: number
}

/** Rows the sweep erases per statement, so that no write waits long behind it. */
export const SWEEP_BATCH = 500
/** Accounts whose old revisions one statement (one write transaction on SQLite) of the sweep erases. */
export const SWEEP_USERS = 100

/** Runs `erase` (one batch: how many rows it erased) until a batch erases fewer than SWEEP_BATCH: how many in all. */
export async function sweepInBatches(erase: () => Promise<number>): Promise<number> {
  let total = 0
  for (;;) {
    const erased = await erase()
    total += erased
    if (erased < SWEEP_BATCH) return total
  }
}

/** Runs `erase` for each page of SWEEP_USERS account ids, in id order, read by `usersAfter` from '' on: its sum. */
export async function sweepByAccounts(
  usersAfter: (id: string) => Promise<string[]>,
  erase: (userIds: string[]) => Promise<number>,
): Promise<number> {
  let total = 0
  for (
    let users = await usersAfter('');
    users.length > 0;
    users = await usersAfter(users[users.length - 1] as string)
  ) {
    total += await erase(users)
  }
  return total
}

export interface TrashHistoryStore {
  /** The account's trash, most recently deleted first. */
  listTrash(userId: string): Promise<TrashedNoteRecord[]>
  /** Moves a trashed note back with updatedOn = nextVersion(it, now): the note, or undefined when not in the trash. Quota: as insertNote. */
  restoreNote(userId: string, noteId: string, now: string): Promise<NoteRecord | undefined>
  /** Erases trashed notes for good, with their history (all of the account's when `noteId` is undefined): how many. */
  eraseTrash(userId: string, noteId?: string): Promise<number>
  /** The revisions of a note, live or trashed, newest first, at most the store's keepRevisions; undefined when the account has no such note. */
  noteHistory(userId: string, noteId: string): Promise<RevisionRecord[] | undefined>
  /**
   * Erases what the cutoffs name (the change feed's gone notes too), in batches, safe to run on many instances at
   * once: how many trashed notes, revisions and changes.
   */
  sweep(cutoffs: SweepCutoffs): Promise<Swept>
}
