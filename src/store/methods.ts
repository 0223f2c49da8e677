// What each Store method does beyond its answer, in one table complete by type: what the cache layer forgets
// (cache/index.ts) and what the change bus publishes once it has committed (services/change-bus/publishing.ts).
// A new Store method without a row fails type-checking, and a row must fill both columns, so no write can be
// classified for one and forgotten by the other.
import type { NoteWrite, Store } from './types.js'

/** Whose accounts a write changes; `ownerOf` answers a session's account where this process has learnt it. */
export type AccountsOf<A extends unknown[]> = (
  args: A,
  ownerOf: (sessionId: string) => string | undefined,
) => string | readonly string[] | undefined

/**
 * What the cache layer forgets. 'nothing' and 'notes' pass through: a listing is always checked against a notes
 * version read after its request arrived, which a note write's triggers move. An `{ accounts }` write makes this
 * process forget each account it names once it settles, whatever its outcome (memory: every lookup compares what is
 * kept with a version read after it asked). 'lifecycle' is the store's own.
 */
export type Forgets<A extends unknown[]> = 'nothing' | 'notes' | 'lifecycle' | { accounts: AccountsOf<A> }

/** The accounts a call changed, from its arguments and its result; undefined or [] publishes nothing. */
export type Changed<A extends unknown[], R> = (args: A, result: R) => string | readonly string[] | undefined

/** What the bus publishes; 'nothing': the call changes no note a listing shows and ends no session. */
export type Publishes<A extends unknown[], R> = 'nothing' | { notes?: Changed<A, R>; sessions?: Changed<A, R> }

export interface MethodEffects<A extends unknown[], R> {
  forgets: Forgets<A>
  publishes: Publishes<A, R>
}

export type StoreMethods = {
  readonly [K in keyof Store]: MethodEffects<Parameters<Store[K]>, Awaited<ReturnType<Store[K]>>>
}

const wrote = (write: NoteWrite) => write !== undefined && 'note' in write
const read = { forgets: 'nothing', publishes: 'nothing' } as const

export const STORE_METHODS = {
  // A new account was never kept, nor has it a stream; forgotten anyway, so that this needs no exception.
  createUser: { forgets: { accounts: ([user]) => user._id }, publishes: 'nothing' },
  findUserByEmailKey: read,
  findUserById: read,
  // A revocation (logout without a session, sign-out everywhere, a password change) ends sessions; a rename ends none.
  updateUser: {
    forgets: { accounts: ([userId]) => userId },
    publishes: { sessions: ([userId, , revocation], user) => (revocation && user ? userId : undefined) },
  },
  deleteUser: {
    forgets: { accounts: ([userId]) => userId },
    publishes: { sessions: ([userId], deleted) => (deleted ? userId : undefined) },
  },
  // A login pushes out the account's expired sessions and those past the most it keeps.
  createSession: {
    forgets: { accounts: ([session]) => session.userId },
    publishes: { sessions: ([session], created) => (created ? session.userId : undefined) },
  },
  findSession: read,
  // lastUsedOn is part of the session's row, so of its account's version; it ends no session.
  touchSession: { forgets: { accounts: ([sessionId], ownerOf) => ownerOf(sessionId) }, publishes: 'nothing' },
  listSessions: read,
  deleteSession: {
    forgets: { accounts: ([userId]) => userId },
    publishes: { sessions: ([userId], deleted) => (deleted ? userId : undefined) },
  },
  insertNote: { forgets: 'notes', publishes: { notes: ([note], inserted) => (inserted ? note.userId : undefined) } },
  findNote: read,
  // A conflict (If-Match) or an absent note changed nothing.
  updateNote: { forgets: 'notes', publishes: { notes: ([userId], write) => (wrote(write) ? userId : undefined) } },
  deleteNote: { forgets: 'notes', publishes: { notes: ([userId], write) => (wrote(write) ? userId : undefined) } },
  listTrash: read,
  restoreNote: { forgets: 'notes', publishes: { notes: ([userId], note) => (note ? userId : undefined) } },
  // Trashed notes have already left the listing, and no answer the cache keeps holds them.
  eraseTrash: read,
  noteHistory: read,
  // The sweep forgets notes gone long ago: a stream whose cursor it passes is told 410 at its next read.
  sweep: read,
  // Never cached: a page is read in the snapshot that numbers it.
  changesSince: read,
  listNotesJson: read,
  searchNotesJson: read,
  // Changes no note: the index is not part of any answer the cache keeps.
  buildSearchIndex: read,
  noteUsage: read,
  // Attachments are no part of a listing, a session or an answer the cache keeps; a note's links to them change
  // with the note's own write.
  insertAttachment: read,
  findAttachment: read,
  listAttachments: read,
  attachmentBytes: read,
  deleteAttachment: read,
  sweepAttachments: read,
  knownBlobKeys: read,
  // Changes only where a record's bytes are: no answer holds the key, and the bytes stay the same.
  moveAttachmentBlob: read,
  ping: { forgets: 'lifecycle', publishes: 'nothing' },
  close: { forgets: 'lifecycle', publishes: 'nothing' },
} as const satisfies StoreMethods

/** The Store methods that write accounts or sessions. */
export type AccountWrite = {
  [K in keyof Store]: (typeof STORE_METHODS)[K]['forgets'] extends { accounts: unknown } ? K : never
}[keyof Store]
