// Answers given before the request's body has all arrived: 413 for a body over BODY_LIMIT, 415,
// 401 from the token check, 404 for a path the router cannot read. Answering and closing while
// the client is still sending makes the kernel reset the connection, and a client still writing
// its body then fails (`write EPIPE`, ECONNRESET) without ever reading the answer; the
// connection is closed after a 413 always (Fastify), and after any answer when the client asked
// for `Connection: close`. So what is left of the body is read and thrown away first, up to a
// bound, and the answer is sent once the body has ended: the client finishes sending, then reads
// the answer like any other. Nothing is kept: each chunk is only counted.
//
// The bound (BODY_DRAIN_LIMIT, by default BODY_DRAIN_FACTOR × BODY_LIMIT: 16 MiB at the default
// 1 MiB) is the largest body read this way. A body declared (Content-Length) larger is answered
// at once; a chunked one is read until it passes the bound, then answered. Either way the
// connection is then closed while the client may still be sending, so such a client may see the
// connection reset instead of the answer. REQUEST_TIMEOUT_MS still bounds the time: a client too
// slow to send the whole request in time gets the 408 of any slow request (client-errors.ts).
import type { IncomingMessage } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** The default bound on a body still read to its end before an early answer, in BODY_LIMITs. */
export const BODY_DRAIN_FACTOR = 16

/**
 * How the rest of a body went: read to its end; past the budget (the rest is left unread); or
 * the connection closed first (the client gave up, or the request timed out).
 */
export type DrainOutcome = 'ended' | 'over-bound' | 'closed'

const ignore = () => {}

/** Reads what is left of a request body, keeping none of it, until it ends or passes `budget` bytes. */
export function discardBody(request: IncomingMessage, budget: number): Promise<DrainOutcome> {
  if (request.readableEnded) return Promise.resolve('ended')
  if (request.destroyed) return Promise.resolve('closed')
  if (budget < 0) return Promise.resolve('over-bound')
  return new Promise((resolve) => {
    let left = budget
    let settled = false
    const settle = (outcome: DrainOutcome) => {
      if (settled) return
      settled = true
      request.off('data', onData)
      request.off('end', onEnd)
      request.off('close', onClose)
      resolve(outcome)
    }
    // Counted, never kept: the chunk is garbage as soon as this returns.
    const onData = (chunk: Buffer) => {
      left -= chunk.length
      if (left < 0) settle('over-bound')
    }
    const onEnd = () => settle('ended')
    const onClose = () => settle(request.readableEnded ? 'ended' : 'closed')
    request.on('data', onData)
    request.on('end', onEnd)
    request.on('close', onClose)
    // A connection lost mid-body is an 'error' here (with a listener) and 'close' settles it.
    request.on('error', ignore)
    request.resume()
  })
}

/**
 * Sends `answer()` once the request's body has arrived: at once when it has (the common case,
 * with no promise made), otherwise after discarding the rest. Past the bound the connection is
 * marked to close, since the rest of the body stays unread; when the connection is gone first,
 * nothing is sent. Returns the pending drain, if any, for Fastify's error handler to wait on.
 */
export type AnswerAfterBody = (request: FastifyRequest, reply: FastifyReply, answer: () => void) => Promise<void> | undefined

export function answerAfterBodyWith(bodyLimit: number, drainLimit: number): AnswerAfterBody {
  return (request, reply, answer) => {
    const raw = request.raw
    if (raw.complete || raw.readableEnded) {
      answer()
      return undefined
    }
    const declared = Number(raw.headers['content-length'])
    // Nothing of a declared body is read before an early answer (Fastify refuses a declared
    // length over BODY_LIMIT unread); of a chunked one, Fastify may have read up to BODY_LIMIT.
    const budget = Number.isNaN(declared) ? drainLimit - bodyLimit : declared <= drainLimit ? declared : -1
    return discardBody(raw, budget).then((outcome) => {
      if (outcome === 'closed') return
      if (outcome === 'over-bound') {
        request.log.info({ drainLimit }, 'unread request body over BODY_DRAIN_LIMIT: answered, connection closed')
        void reply.header('connection', 'close')
      }
      answer()
    })
  }
}
