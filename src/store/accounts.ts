// The Store's accounts section: users, what may change in them, and who makes a change (docs/accounts.md).
// Each driver implements it in its accounts.ts.

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

/**
 * Whether an account admits a token without a session issued at `issuedAt` (ISO 8601, as Actor.issuedAt): the one
 * rule the authenticate hook and both drivers' account writes apply.
 */
export function admitsTokenIssuedAt(tokensNotBefore: string | null | undefined, issuedAt: string): boolean {
  return tokensNotBefore == null || tokensNotBefore <= issuedAt
}

export interface AccountStore {
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
  updateUser(
    userId: string,
    change: AccountChange,
    revocation?: Revocation,
    actor?: Actor,
  ): Promise<UserRecord | undefined>
  /** Deletes the account, its notes and its sessions in one transaction; false when absent. Actor: as updateUser. */
  deleteUser(userId: string, actor?: Actor): Promise<boolean>
}
