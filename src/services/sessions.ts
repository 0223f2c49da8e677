// Sessions (docs/accounts.md): a token is accepted only while its session is stored, so every instance sees one end.
import { admitsTokenIssuedAt } from '../store/accounts.js'
import type { Actor, CheckedVersions, Revocation, SessionRecord, Store, UserRecord } from '../store/types.js'
import { isWellFormedSessionId, newSessionId } from './ids.js'
import { TOKEN_LIFETIME_MS, type VerifiedToken } from './tokens.js'

/** lastUsedOn is written at most this often per session, not on every request. */
export const SESSION_TOUCH_INTERVAL_MS = 5 * 60_000

/** A login past it ends the least recently used session: a script that never logs out adds one per run. */
export const MAX_SESSIONS_PER_ACCOUNT = 100

// eslint-disable-next-line no-control-regex -- control characters are what clientOf replaces
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g

/** The User-Agent as a session's client (docs/accounts.md); a cut through a surrogate pair is mended. */
function clientOf(userAgent: string | undefined): string {
  if (!userAgent) return ''
  return userAgent.replace(CONTROL_CHARACTERS, ' ').trim().slice(0, 200).trimEnd().toWellFormed()
}

export interface Authenticated extends Pick<VerifiedToken, 'sessionId' | 'issuedAt'> {
  account: UserRecord
  /** The lookup's proof that it read the account's versions for this request (Store.listNotesJson). */
  checked?: CheckedVersions
}

export type ListedSession = Omit<SessionRecord, 'userId'> & { current: boolean }

/** The caller as an account write's actor: the write commits only while its token is admitted. */
export function actorOf(caller: Authenticated): Actor {
  return { sessionId: caller.sessionId, issuedAt: new Date(caller.issuedAt * 1000).toISOString() }
}

/** `issuedAt`: the token's `iat`, in seconds. The rule is the store's, which each account write applies too. */
function admitsTokenWithoutSession(account: UserRecord, issuedAt: number): boolean {
  return admitsTokenIssuedAt(account.tokensNotBefore, new Date(issuedAt * 1000).toISOString())
}

export class SessionService {
  constructor(private readonly store: Store) {}

  newSession(userId: string, userAgent: string | undefined): SessionRecord {
    const now = new Date().toISOString()
    return { _id: newSessionId(), userId, createdOn: now, lastUsedOn: now, client: clientOf(userAgent) }
  }

  /** Also ends the account's expired sessions and those past MAX_SESSIONS_PER_ACCOUNT; undefined: no account. */
  async open(userId: string, userAgent: string | undefined): Promise<SessionRecord | undefined> {
    const session = this.newSession(userId, userAgent)
    const prune = { createdBefore: liveSince(), keepMost: MAX_SESSIONS_PER_ACCOUNT }
    return (await this.store.createSession(session, prune)) ? session : undefined
  }

  /** Who a verified token acts for, with one store call; undefined: 401. */
  authenticate(token: VerifiedToken): Promise<Authenticated | undefined> {
    const { sessionId } = token
    if (sessionId === undefined) {
      return this.store
        .findUserById(token.user._id)
        .then((account) =>
          account && admitsTokenWithoutSession(account, token.issuedAt)
            ? { account, sessionId, issuedAt: token.issuedAt }
            : undefined,
        )
    }
    return this.store.findSession(sessionId).then((found) => {
      // A session names one account; a token naming another account's session is refused.
      if (!found || found.user._id !== token.user._id) return undefined
      this.touchWhenStale(found.session)
      return { account: found.user, sessionId, issuedAt: token.issuedAt, checked: found.checked }
    })
  }

  /**
   * Whether the caller that authenticated earlier is still admitted, as the authenticate hook would decide now (a live
   * update stream asks). `fresh`: past the cache layer, for a stream told that its account's sessions changed.
   */
  async stillAdmits(caller: Authenticated, fresh: boolean): Promise<boolean> {
    const userId = caller.account._id
    if (caller.sessionId === undefined) {
      const account = await this.store.findUserById(userId, fresh)
      return account !== undefined && admitsTokenWithoutSession(account, caller.issuedAt)
    }
    return (await this.store.findSession(caller.sessionId, fresh))?.user._id === userId
  }

  live(userId: string): Promise<SessionRecord[]> {
    return this.store.listSessions(userId, liveSince())
  }

  async list(userId: string, currentId: string | undefined): Promise<ListedSession[]> {
    const sessions = await this.live(userId)
    return sessions.map((s) => ({
      _id: s._id,
      createdOn: s.createdOn,
      lastUsedOn: s.lastUsedOn,
      client: s.client,
      current: s._id === currentId,
    }))
  }

  /** DELETE /delete-session, while the caller's session is alive (else SessionEndedError); false: no such session. */
  end(caller: Authenticated, sessionId: string): Promise<boolean> {
    if (!isWellFormedSessionId(sessionId)) return Promise.resolve(false)
    return this.store.deleteSession(caller.account._id, sessionId, actorOf(caller))
  }

  /** A token without a session cannot be told apart from the account's other such tokens: they all end. false: no account. */
  async logout(caller: Authenticated): Promise<boolean> {
    if (caller.sessionId !== undefined)
      return this.store.deleteSession(caller.account._id, caller.sessionId, actorOf(caller))
    return (
      (await this.store.updateUser(caller.account._id, {}, revokeNow({ endSessions: false }), actorOf(caller))) !==
      undefined
    )
  }

  /** POST /logout-everywhere (with the caller as actor) and `users revoke-sessions` (none). */
  async endAll(userId: string, caller?: Authenticated): Promise<boolean> {
    return (
      (await this.store.updateUser(userId, {}, revokeNow({ endSessions: true }), caller && actorOf(caller))) !==
      undefined
    )
  }

  // Not awaited: a failed write only leaves lastUsedOn older. The statement repeats the condition, so instances that
  // see the same old value write it once between them. toISOString's fixed-width form compares as the times do.
  private touchWhenStale(session: SessionRecord): void {
    const staleBefore = this.staleBefore()
    if (session.lastUsedOn >= staleBefore) return
    this.store.touchSession(session._id, new Date().toISOString(), staleBefore).catch(() => {})
  }

  /** Worked out once per second rather than per request. */
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

/** A session created before this has an expired token. */
function liveSince(): string {
  return new Date(Date.now() - TOKEN_LIFETIME_MS).toISOString()
}

export function revokeNow(ending: Omit<Revocation, 'notBefore'>): Revocation {
  return { notBefore: new Date().toISOString(), ...ending }
}
