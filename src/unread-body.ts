// Answers given before the request's body has all arrived (413, 415, 401, an unroutable 404). Closing the connection
// while the client still sends makes the kernel reset it, and the client fails (`write EPIPE`, ECONNRESET) without
// reading the answer: the rest of the body is first read and dropped, up to BODY_DRAIN_LIMIT (docs/configuration.md).
import type { IncomingMessage } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** BODY_DRAIN_LIMIT's default, in BODY_LIMITs. */
export const BODY_DRAIN_FACTOR = 16

/** Read to its end; past the budget (the rest left unread); or the connection closed first. */
export type DrainOutcome = 'ended' | 'over-bound' | 'closed'

/** Reads and drops the rest of a request body until it ends or passes `budget` bytes. */
export function discardBody(request: IncomingMessage, budget: number): Promise<DrainOutcome> {
  if (request.readableEnded) return Promise.resolve('ended')
  if (request.destroyed) return Promise.resolve('closed')
  if (budget < 0) return Promise.resolve('over-bound')
  return new Promise((resolve) => {
    let left = budget
    const settle = (outcome: DrainOutcome) => {
      request.off('data', onData)
      request.off('end', onEnd)
      request.off('close', onClose)
      resolve(outcome)
    }
    const onData = (chunk: Buffer) => {
      left -= chunk.length
      if (left < 0) settle('over-bound')
    }
    const onEnd = () => settle('ended')
    const onClose = () => settle(request.readableEnded ? 'ended' : 'closed')
    request.on('data', onData)
    request.on('end', onEnd)
    request.on('close', onClose)
    // A connection lost mid-body is an 'error' here, and 'close' settles it.
    request.on('error', () => {})
    request.resume()
  })
}

/**
 * Sends `answer()` once the body has arrived, at once when it has (no promise made); past the
 * bound the connection is then closed. Returns the pending drain, for Fastify's error handler.
 */
export type AnswerAfterBody = (
  request: FastifyRequest,
  reply: FastifyReply,
  answer: () => void,
) => Promise<void> | undefined

export function answerAfterBodyWith(bodyLimit: number, drainLimit: number): AnswerAfterBody {
  return (request, reply, answer) => {
    const raw = request.raw
    if (raw.complete || raw.readableEnded) {
      answer()
      return undefined
    }
    const declared = Number(raw.headers['content-length'])
    // Fastify refuses a declared length over BODY_LIMIT unread; of a chunked body it may have read up to BODY_LIMIT.
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
