// Bearer-token authentication (docs/contract.md, "Authentication"): any failure is a bare 401 in plain text.
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import { publicUser } from '../services/accounts.js'
import type { Authenticated } from '../services/sessions.js'
import type { TokenService, TokenUser, VerifiedToken } from '../services/tokens.js'
import type { CheckedVersions, UserRecord } from '../store/types.js'

declare module 'fastify' {
  interface FastifyRequest {
    user: TokenUser
    /** The same account with its hash and "not before" time: for the rules, never sent. */
    account: UserRecord
    sessionId: string | undefined
    /** The token's `iat` in seconds (0 when none): the actor of account writes (sessions.ts actorOf). */
    tokenIssuedAt: number
    /** Proof that this request's lookup read the account's versions, for this request's listing only. */
    versionsChecked: CheckedVersions | undefined
  }
}

export function sendUnauthorized(reply: FastifyReply): FastifyReply {
  return reply.code(401).type('text/plain; charset=utf-8').send('Unauthorized')
}

export type Authenticate = onRequestHookHandler

/**
 * An onRequest hook, so unauthenticated bodies are never parsed. A signed token is refused unless the store, asked on
 * this request, still holds its session and account: an ended session gets 401 on every instance at its next request
 * (docs/accounts.md). A callback hook: an async one costs a promise and a microtask turn per authenticated request.
 */
export function authenticateWith(
  tokens: TokenService,
  findCaller: (token: VerifiedToken) => Promise<Authenticated | undefined>,
  refuse: (request: FastifyRequest, reply: FastifyReply) => void,
): Authenticate {
  return function authenticate(request, reply, done): void {
    const header = request.headers.authorization
    const token = typeof header === 'string' ? header.split(' ')[1] : undefined
    const verified = token ? tokens.verify(token) : undefined
    if (!verified) return refuse(request, reply)
    findCaller(verified).then((caller) => {
      // A hook that has replied does not call done.
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

export function callerOf(request: FastifyRequest): Authenticated {
  return { account: request.account, sessionId: request.sessionId, issuedAt: request.tokenIssuedAt }
}
