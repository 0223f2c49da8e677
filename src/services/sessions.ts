// Sessions (docs/accounts.md): every token from /login or /create-account names one (claim
// `sid`), and a token is accepted only while its session is stored. Ending a session deletes its
// row; each request looks its session up by primary key, so the end is seen by every instance
// and worker at its next request, and survives restarts. Tokens issued before sessions existed
// name none: they are accepted until they expire, unless the account's "not before" time has
// been moved past their `iat` (docs/accounts.md).
import type { Actor, CheckedVersions, Revocation, SessionRecord, Store, UserRecord } from '../store/types.js'
import { isWellFormedSessionId, newSessionId } from './ids.js'
import { TOKEN_LIFETIME_MS, type VerifiedToken } from './tokens.js'

/**
 * lastUsedOn is written at most this often per session: a request that finds it older writes
 * it, every other request writes nothing. Five minutes keeps "last used" meaningful in a list of
 * sessions while an active session costs one small write per five minutes, never one per request.
 */
export const SESSION_TOUCH_INTERVAL_MS = 5 * 60_000

/**
 * Live sessions one account keeps: a login past it ends the least recently used one. A script
 * that logs in on every run, never logging out, would otherwise add a row per run for 25 days.
 */
export const MAX_SESSIONS_PER_ACCOUNT = 100

/** The longest client description kept (docs/accounts.md: the trimmed User-Agent, ≤ 200 characters). */
export const CLIENT_MAX_LENGTH = 200

/**
 * The client description of a session: the User-Agent with control characters replaced by
 * spaces, trimmed, cut to CLIENT_MAX_LENGTH characters (a cut through a surrogate pair is
 * mended); '' when the request had none.
 */
export function clientOf(userAgent: string | undefined): string {
  if (!userAgent) return ''
  // eslint-disable-next-line no-control-regex -- control characters are what this replaces
  const text = userAgent.replace(/[\u0000-\u001f\u007f]/g, ' ').trim()
  return text.length <= CLIENT_MAX_LENGTH ? text.toWellFormed() : text.slice(0, CLIENT_MAX_LENGTH).trimEnd().toWellFormed()
}

/** Who a request acts for: the account as stored, and the session its token names. */
export interface Authenticated {
  account: UserRecord
  /** undefined for a token issued before sessions existed. */
  sessionId: string | undefined
  /** The token's `iat`, in seconds since the epoch (0 when it has none). */
  issuedAt: number
  /** The lookup's proof that it read the account's versions for this request (CheckedVersions, Store.listNotesJson). */
  checked?: CheckedVersions
}

/** A session as GET /get-sessions lists it. */
export interface ListedSession {
  _id: string
  createdOn: string
  lastUsedOn: string
  client: string
  current: boolean
}

/** The caller as an account write's actor: the write commits only while its token is admitted. */
export function actorOf(caller: Authenticated): Actor {
  return { sessionId: caller.sessionId, issuedAt: new Date(caller.issuedAt * 1000).toISOString() }
}

/** Whether the account's "not before" time lets a token without a session through. */
export function admitsTokenWithoutSession(account: UserRecord, issuedAt: number): boolean {
  return account.tokensNotBefore === undefined || Date.parse(account.tokensNotBefore) <= issuedAt * 1000
}

export class SessionService {
  constructor(private readonly store: Store) {}

  /** A new session of the account, used now (stored by the caller, or by open()). */
  newSession(userId: string, userAgent: string | undefined): SessionRecord {
    const now = new Date().toISOString()
    return { _id: newSessionId(), userId, createdOn: now, lastUsedOn: now, client: clientOf(userAgent) }
  }

  /**
   * Stores a new session of an existing account, ending those past their tokens' lifetime and
   * the least recently used past MAX_SESSIONS_PER_ACCOUNT; undefined when the account is gone.
   */
  async open(userId: string, userAgent: string | undefined): Promise<SessionRecord | undefined> {
    const session = this.newSession(userId, userAgent)
    const prune = { createdBefore: liveSince(), keepMost: MAX_SESSIONS_PER_ACCOUNT }
    return (await this.store.createSession(session, prune)) ? session : undefined
  }

  /**
   * Who a verified token acts for, with one store call: its session and that session's account,
   * or, for a token without a session, its account and "not before" time. undefined: 401.
   */
  authenticate(token: VerifiedToken): Promise<Authenticated | undefined> {
    const { sessionId } = token
    if (sessionId === undefined) {
      return this.store.findUserById(token.user._id).then((account) =>
        account && admitsTokenWithoutSession(account, token.issuedAt) ? { account, sessionId, issuedAt: token.issuedAt } : undefined,
      )
    }
    return this.store.findSession(sessionId).then((found) => {
      // A session names one account; a token naming another account's session is refused.
      if (!found || found.user._id !== token.user._id) return undefined
      this.touchWhenStale(found.session)
      return { account: found.user, sessionId, issuedAt: token.issuedAt, checked: found.checked }
    })
  }

  /** The account's live sessions (their tokens have not expired), most recently used first. */
  live(userId: string): Promise<SessionRecord[]> {
    return this.store.listSessions(userId, liveSince())
  }

  /** live(), as GET /get-sessions lists them: `current` marks the caller's. */
  async list(userId: string, currentId: string | undefined): Promise<ListedSession[]> {
    const sessions = await this.live(userId)
    return sessions.map((s) => ({ _id: s._id, createdOn: s.createdOn, lastUsedOn: s.lastUsedOn, client: s.client, current: s._id === currentId }))
  }

  /**
   * DELETE /delete-session: ends one of the caller's account's sessions, while the caller's own
   * is alive (else SessionEndedError); false when the account has none with this id (a malformed
   * one included).
   */
  end(caller: Authenticated, sessionId: string): Promise<boolean> {
    if (!isWellFormedSessionId(sessionId)) return Promise.resolve(false)
    return this.store.deleteSession(caller.account._id, sessionId, actorOf(caller))
  }

  /**
   * POST /logout: ends the caller's session. A token without a session cannot be told apart
   * from the account's other such tokens, so the account's "not before" time moves to now: they
   * all end, and the account's sessions stay. false when the account is gone; SessionEndedError
   * when the session ended meanwhile.
   */
  async logout(caller: Authenticated): Promise<boolean> {
    if (caller.sessionId !== undefined) return this.store.deleteSession(caller.account._id, caller.sessionId, actorOf(caller))
    return (await this.store.updateUser(caller.account._id, {}, revokeNow({ endSessions: false }), actorOf(caller))) !== undefined
  }

  /**
   * Every session and every token without a session end: POST /logout-everywhere (with the
   * caller as actor) and `users revoke-sessions` (none).
   */
  async endAll(userId: string, caller?: Authenticated): Promise<boolean> {
    return (await this.store.updateUser(userId, {}, revokeNow({ endSessions: true }), caller && actorOf(caller))) !== undefined
  }

  /**
   * Writes lastUsedOn when it is SESSION_TOUCH_INTERVAL_MS old, without holding up the request:
   * a failed write only leaves it older, and a later request tries again. The condition is in
   * the statement too, so instances that see the same old value write it once between them.
   */
  private touchWhenStale(session: SessionRecord): void {
    // Both are toISOString's fixed-width UTC form, so the strings compare as the times do.
    const staleBefore = this.staleBefore()
    if (session.lastUsedOn >= staleBefore) return
    this.store.touchSession(session._id, new Date().toISOString(), staleBefore).catch(() => {})
  }

  /** The time SESSION_TOUCH_INTERVAL_MS ago, worked out once per second rather than per request. */
  private staleBefore(): string {
    const second = Math.floor(Date.now() / 1000)
    if (second !== this.staleBeforeSecond) {
      this.staleBeforeSecond = second
      this.staleBeforeIso = new Date(second * 1000 - SESSION_TOUCH_INTERVAL_MS).toISOString()
    }
    return this.staleBeforeIso
  }

  private staleBeforeSecond = -1
  private staleBeforeIso = ''
}

/** A session created before this is past its token's lifetime: its token has expired. */
function liveSince(): string {
  return new Date(Date.now() - TOKEN_LIFETIME_MS).toISOString()
}

/** A revocation that ends tokens issued until now. */
export function revokeNow(ending: Omit<Revocation, 'notBefore'>): Revocation {
  return { notBefore: new Date().toISOString(), ...ending }
}
