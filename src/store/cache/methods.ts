// What the cache layer does with each Store method, complete by type: a new Store method without
// a treatment fails type-checking, so no account write can skip forgetting the account (index.ts).
import type { Store } from '../types.js'

/** Whose accounts a write changes; `ownerOf` answers a session's account where this process has learnt it. */
export type AccountsOf<A extends unknown[]> = (args: A, ownerOf: (sessionId: string) => string | undefined) => string | readonly string[] | undefined

/**
 * `read` and `notes-write` pass through (or are answered from versions read after the call); an
 * `{ account }` write also makes this process forget each account it names once it settles,
 * whatever its outcome, for versions used on the strength of notices (account-versions.ts).
 */
export type Treatment<A extends unknown[]> = 'read' | 'notes-write' | 'lifecycle' | { account: AccountsOf<A> }

export type StoreMethods = { readonly [K in keyof Store]: Treatment<Parameters<Store[K]>> }

export const STORE_METHODS = {
  // A new account was never kept; forgotten anyway, so that this needs no exception.
  createUser: { account: ([user]) => user._id },
  findUserByEmailKey: 'read',
  findUserById: 'read',
  updateUser: { account: ([userId]) => userId },
  deleteUser: { account: ([userId]) => userId },
  createSession: { account: ([session]) => session.userId },
  findSession: 'read',
  // lastUsedOn is part of the session's row, so of its account's version.
  touchSession: { account: ([sessionId], ownerOf) => ownerOf(sessionId) },
  listSessions: 'read',
  deleteSession: { account: ([userId]) => userId },
  insertNote: 'notes-write',
  findNote: 'read',
  updateNote: 'notes-write',
  deleteNote: 'notes-write',
  listTrash: 'read',
  restoreNote: 'notes-write',
  eraseTrash: 'read',
  noteHistory: 'read',
  sweep: 'read',
  // Never cached: a page is read in the snapshot that numbers it.
  changesSince: 'read',
  listNotesJson: 'read',
  searchNotesJson: 'read',
  // Changes no note: the index is not part of any answer the cache keeps.
  buildSearchIndex: 'read',
  importUsers: { account: ([users]) => users.map((u) => u._id) },
  importNotes: 'notes-write',
  usersAfter: 'read',
  notesAfter: 'read',
  importTrash: 'notes-write',
  importRevisions: 'notes-write',
  trashAfter: 'read',
  revisionsAfter: 'read',
  noteUsage: 'read',
  accountsOverQuota: 'read',
  ping: 'lifecycle',
  close: 'lifecycle',
} as const satisfies StoreMethods

/** The Store methods that write accounts or sessions. */
export type AccountWrite = { [K in keyof Store]: (typeof STORE_METHODS)[K] extends { account: unknown } ? K : never }[keyof Store]
