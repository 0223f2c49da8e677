// Bearer-token authentication (spec §5). The token is the second space-separated part of the
// Authorization header; the scheme word is not checked (decisions.md, "Kept exactly"). Any
// failure is a bare 401 whose body is the plain status text, never JSON.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { TokenService, TokenUser } from '../services/tokens.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The acting user as stored, set by the authenticate hook on protected routes. */
    user: TokenUser
  }
}

export function sendUnauthorized(reply: FastifyReply): FastifyReply {
  return reply.code(401).type('text/plain; charset=utf-8').send('Unauthorized')
}

export type Authenticate = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

/** The account a token names, as stored now, or undefined when it no longer exists. */
export type FindAccount = (userId: string) => Promise<TokenUser | undefined>

/**
 * An onRequest hook: runs before the body is read, so unauthenticated bodies are never parsed.
 * A correctly signed token whose user no longer exists is refused too (issue 5): otherwise
 * add-note would write a note for nobody (a foreign-key failure, a 500) and lists would answer
 * 200 for an account that is gone.
 */
export function authenticateWith(tokens: TokenService, findAccount: FindAccount): Authenticate {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization
    const token = typeof header === 'string' ? header.split(' ')[1] : undefined
    const claimed = token ? tokens.verify(token) : undefined
    // One primary-key lookup, whose result GET /get-user answers with (no second read).
    const user = claimed && (await findAccount(claimed._id))
    if (!user) return void sendUnauthorized(reply)
    request.user = user
  }
}
