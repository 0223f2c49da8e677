// GET /stream-changes (docs/sync.md, "Live updates"): authenticates, takes a slot and reads the first page before
// anything is sent, so that a limit or an expired cursor is a JSON answer; then hands the socket to the stream.
import type { Static } from '@sinclair/typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { type Authenticate, callerOf } from '../plugins/auth.js'
import { streamChanges } from '../schemas/streams.js'
import type { LiveStreams } from '../services/streams.js'
import { startEventStream } from './stream-wire.js'

/** Last-Event-ID (an EventSource reconnecting) wins over since; an empty one is none. */
function startingCursor(
  request: FastifyRequest<{ Querystring: Static<typeof streamChanges.querystring> }>,
): string | undefined {
  const header = request.headers['last-event-id']
  const lastEventId = Array.isArray(header) ? header[0] : header
  return lastEventId || request.query.since
}

export function streamRoutes(app: FastifyInstance, streams: LiveStreams, authenticate: Authenticate): void {
  app.get<{ Querystring: Static<typeof streamChanges.querystring> }>('/stream-changes', {
    onRequest: authenticate,
    // A HEAD would hold a slot for a stream with no body.
    exposeHeadRoute: false,
    schema: streamChanges,
    handler: async (request, reply) => {
      const stream = await streams.prepare(callerOf(request), startingCursor(request))
      // Hijacked replies skip Fastify's onSend: the headers set so far (CORS) are carried over by hand.
      const headers = reply.getHeaders()
      reply.hijack()
      startEventStream(stream, reply.raw, headers)
    },
  })
}
