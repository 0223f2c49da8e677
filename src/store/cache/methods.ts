// What the cache layer does with each Store method, complete by type: a new Store method without
// a treatment fails type-checking, so no account write can pass through without forgetting what
// this process knows of the account (index.ts derives every wrapper from here).
import type { Store } from '../types.js'

/** Whose accounts a write changes; `ownerOf` answers a session's account where this process has learnt it. */
export type AccountsOf<A extends unknown[]> = (args: A, ownerOf: (sessionId: string) => string | undefined) => string | readonly string[] | undefined

/**
 * - `read`: passes through, or is answered by the cache layer against versions read after the call.
 * - `notes-write`: passes through; its triggers move the notes version every listing is checked against.
 * - `{ account }`: the triggers move the account's version too, but where versions are used again on
 *   the strength of notices (account-versions.ts), each account named is forgotten once the write
 *   settles, whatever its outcome, so this process's next request reads it again.
 * - `lifecycle`: readiness and closing.
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
