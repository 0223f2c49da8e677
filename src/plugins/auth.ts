// Bearer-token authentication (docs/contract.md, "Authentication"). The token is the second
// space-separated part of the Authorization header; the scheme word is not checked. Any
// failure is a bare 401 whose body is the plain status text, never JSON.
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import { publicUser } from '../services/accounts.js'
import type { Authenticated } from '../services/sessions.js'
import type { TokenService, TokenUser, VerifiedToken } from '../services/tokens.js'
import type { CheckedVersions, UserRecord } from '../store/types.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The acting user as stored, set by the authenticate hook on protected routes. */
    user: TokenUser
    /** The same account with its hash and "not before" time: for the rules, never sent. */
    account: UserRecord
    /** The session the token names; undefined for a token issued before sessions existed. */
    sessionId: string | undefined
    /** The token's `iat` in seconds (0 when none): the actor of account writes (sessions.ts actorOf). */
    tokenIssuedAt: number
    /** This request's own proof that its lookup read the account's versions, if it did (CheckedVersions): passed on only to this request's listing. */
    versionsChecked: CheckedVersions | undefined
  }
}

export function sendUnauthorized(reply: FastifyReply): FastifyReply {
  return reply.code(401).type('text/plain; charset=utf-8').send('Unauthorized')
}

export type Authenticate = onRequestHookHandler

/**
 * Sends the 401 of a refused token. The hook runs before the body is read, so the app passes one
 * that waits for the body first (unread-body.ts); sendUnauthorized itself answers at once.
 */
export type Refuse = (request: FastifyRequest, reply: FastifyReply) => void

/**
 * Who a verified token acts for, or undefined when its session has ended or its account is gone
 * (SessionService.authenticate: one store call).
 */
export type FindCaller = (token: VerifiedToken) => Promise<Authenticated | undefined>

/**
 * An onRequest hook: runs before the body is read, so unauthenticated bodies are never parsed.
 * A correctly signed token is refused unless the store, asked on this request, still holds its
 * session and account (docs/accounts.md): the signature check may come from the verified-token
 * cache (tokens.ts), this lookup never does, so an ended session or a deleted account gets 401
 * on every instance at its next request.
 * An account deleted after this check is caught by the foreign key: add-note answers 401 too.
 * A callback hook, not an async one: every authenticated request runs it, and an async hook
 * costs a promise of its own and one more turn of the microtask queue (docs/performance.md,
 * "What shaped the design").
 */
export function authenticateWith(tokens: TokenService, findCaller: FindCaller, refuse: Refuse): Authenticate {
  return function authenticate(request, reply, done): void {
    const header = request.headers.authorization
    const token = typeof header === 'string' ? header.split(' ')[1] : undefined
    const verified = token ? tokens.verify(token) : undefined
    if (!verified) return refuse(request, reply)
    // One primary-key lookup, whose account GET /get-user answers with (no second read).
    findCaller(verified).then((caller) => {
      // A hook that has replied does not call done (https://fastify.dev/docs/latest/Reference/Hooks/#respond-to-a-request-from-a-hook).
      if (!caller) return refuse(request, reply)
      request.account = caller.account
      request.user = publicUser(caller.account)
      request.sessionId = caller.sessionId
      request.tokenIssuedAt = caller.issuedAt
      request.versionsChecked = caller.checked
      done()
    }, done)
  }
}

/** The caller as the hook found it, for the services' rules. */
export function callerOf(request: FastifyRequest): Authenticated {
  return { account: request.account, sessionId: request.sessionId, issuedAt: request.tokenIssuedAt }
}
