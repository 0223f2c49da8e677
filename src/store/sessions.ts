// The Store's sessions section (docs/accounts.md): every session query but findSession takes the owner's id.
// Each driver implements it in its sessions.ts.
import type { Actor, SessionRecord, UserRecord } from './accounts.js'

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

/** Which sessions of an account a new one pushes out (Store.createSession). */
export interface SessionPruning {
  /** Sessions created before this (ISO 8601) have outlived their tokens and are deleted. */
  createdBefore: string
  /** Of the rest, only this many are kept, the new one included: the most recently used. */
  keepMost: number
}

export interface SessionStore {
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
}
