// Bearer-token authentication (spec §5). The token is the second space-separated part of the
// Authorization header; the scheme word is not checked (decisions.md, "Kept exactly"). Any
// failure is a bare 401 whose body is the plain status text, never JSON.
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import type { TokenService, TokenUser } from '../services/tokens.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The acting user as stored, set by the authenticate hook on protected routes. */
    user: TokenUser
    /**
     * The account id a valid token names, set by the verifyToken hook on the routes whose
     * handler checks that the account exists itself (GET /get-all-notes).
     */
    tokenUserId: string
  }
}

export function sendUnauthorized(reply: FastifyReply): FastifyReply {
  return reply.code(401).type('text/plain; charset=utf-8').send('Unauthorized')
}

export type Authenticate = onRequestHookHandler

/**
 * Sends the 401 of a refused token. The hooks run before the body is read, so the app passes one
 * that waits for the body first (unread-body.ts); sendUnauthorized itself answers at once.
 */
export type Refuse = (request: FastifyRequest, reply: FastifyReply) => void

/** The account a token names, as stored now, or undefined when it no longer exists. */
export type FindAccount = (userId: string) => Promise<TokenUser | undefined>

/**
 * An onRequest hook: runs before the body is read, so unauthenticated bodies are never parsed.
 * A correctly signed token whose user no longer exists is refused too (issue 5): otherwise
 * add-note would write a note for nobody and lists would answer 200 for an account that is gone.
 * An account deleted after this check is caught by the foreign key: add-note answers 401 too.
 * A callback hook, not an async one: every authenticated request runs it, and an async hook
 * costs a promise of its own and one more turn of the microtask queue (docs/performance.md,
 * "What shaped the design").
 */
export function authenticateWith(tokens: TokenService, findAccount: FindAccount, refuse: Refuse): Authenticate {
  return function authenticate(request, reply, done): void {
    const claimed = tokenUser(tokens, request)
    if (!claimed) return refuse(request, reply)
    // One primary-key lookup, whose result GET /get-user answers with (no second read).
    findAccount(claimed._id).then((user) => {
      if (!user) return refuse(request, reply)
      request.user = user
      done()
    }, done)
  }
}

/**
 * The token check alone, for a route whose handler asks the store for the account and its data
 * in one call and answers 401 itself when the account is gone (GET /get-all-notes:
 * Store.listNotesJsonOfAccount). That saves a PostgreSQL round trip, or a second SQLite
 * freshness check, per request. A callback hook: nothing in it waits.
 */
export function verifyTokenWith(tokens: TokenService, refuse: Refuse): onRequestHookHandler {
  return function verifyToken(request, reply, done): void {
    const claimed = tokenUser(tokens, request)
    // A hook that has replied does not call done (https://fastify.dev/docs/latest/Reference/Hooks/#respond-to-a-request-from-a-hook).
    if (!claimed) return refuse(request, reply)
    request.tokenUserId = claimed._id
    done()
  }
}

/** The user a valid bearer token names; the scheme word is not checked (see the top). */
function tokenUser(tokens: TokenService, request: FastifyRequest): TokenUser | undefined {
  const header = request.headers.authorization
  const token = typeof header === 'string' ? header.split(' ')[1] : undefined
  return token ? tokens.verify(token) : undefined
}
