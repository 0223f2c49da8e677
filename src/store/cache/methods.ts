// What the cache layer does with each Store method. The classification is complete by type: a
// new Store method without one fails type-checking, so no account write can be added that this
// layer passes through without forgetting what it knows of the account (index.ts derives every
// method's wrapper from here; test/store-cache.test.ts calls each account write and checks it).
import type { Store } from '../types.js'

/**
 * Whose accounts a write changes, from its arguments. `ownerOf` answers a session's account
 * where this process has learnt it (only a session id is given).
 */
export type AccountsOf<A extends unknown[]> = (args: A, ownerOf: (sessionId: string) => string | undefined) => string | readonly string[] | undefined

/**
 * - `read`: passes through, or is answered by the cache layer itself (index.ts), checked
 *   against versions read after the call.
 * - `notes-write`: passes through. Listings are always checked against a notes version read
 *   after the request arrived, which the write's triggers have moved: nothing kept is forgotten.
 * - `{ account }`: changes accounts or their sessions. The triggers move their versions too, but
 *   where this process uses a version again on the strength of notices (PostgreSQL,
 *   account-versions.ts), it forgets the version of every account `account` names once the
 *   write settles, whatever its outcome, so its own next request reads it again.
 * - `lifecycle`: the store's own (readiness, closing).
 */
export type Treatment<A extends unknown[]> = 'read' | 'notes-write' | 'lifecycle' | { account: AccountsOf<A> }

export type StoreMethods = { readonly [K in keyof Store]: Treatment<Parameters<Store[K]>> }

export const STORE_METHODS = {
  // A new account: its id was never kept, forgotten anyway so that this needs no argument.
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
  listNotesJson: 'read',
  searchNotesJson: 'read',
  importUsers: { account: ([users]) => users.map((u) => u._id) },
  importNotes: 'notes-write',
  usersAfter: 'read',
  notesAfter: 'read',
  noteUsage: 'read',
  accountsOverQuota: 'read',
  ping: 'lifecycle',
  close: 'lifecycle',
} as const satisfies StoreMethods

/** The Store methods that write accounts or sessions. */
export type AccountWrite = { [K in keyof Store]: (typeof STORE_METHODS)[K] extends { account: unknown } ? K : never }[keyof Store]
