// The wire of a live update stream (docs/sync.md, "Live updates"): server-sent events on the Node response the route
// took over from Fastify, and the one answer written by hand, when the instance began shutting down meanwhile.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { StreamOutput } from '../services/live-stream.js'
import { type PreparedStream, RETRY_AFTER_INSTANCE_S, TOO_MANY_FOR_INSTANCE } from '../services/streams.js'

/** Headers a reply carried before the stream took it over (Fastify's getHeaders()). */
export type CarriedHeaders = Record<string, string | number | string[] | undefined>

/** Starts the stream on `response`, sending `carried` (CORS) with the stream's own headers. */
export function startEventStream(stream: PreparedStream, response: ServerResponse, carried: CarriedHeaders): void {
  if (stream.start(eventStream(response, carried))) return
  // Fastify no longer answers for this reply: the shutting-down 503 is written here, with the headers carried.
  response.writeHead(503, {
    ...(carried as OutgoingHttpHeaders),
    'content-type': 'application/json; charset=utf-8',
    'retry-after': String(RETRY_AFTER_INSTANCE_S),
  })
  response.end(JSON.stringify({ error: true, message: TOO_MANY_FOR_INSTANCE }))
}

function eventStream(response: ServerResponse, carried: CarriedHeaders): StreamOutput {
  return {
    open({ heartbeatMs, retryMs }, closed) {
      response.on('close', closed)
      if (!response.socket || response.socket.destroyed) return false
      // Idle between heartbeats by design: the connection timeout is for requests, not for streams.
      response.socket.setTimeout(0)
      response.socket.setKeepAlive(true, heartbeatMs)
      response.writeHead(200, {
        ...(carried as OutgoingHttpHeaders),
        'content-type': 'text/event-stream; charset=utf-8',
        // no-cache for proxies that know no better; no-store as every answer of this API (notes are private).
        'cache-control': 'no-cache, no-store',
        // nginx buffers responses unless told not to: events would wait for its buffer to fill.
        'x-accel-buffering': 'no',
        // The connection ends with the stream, so that shutting down never waits for an idle keep-alive socket.
        connection: 'close',
      })
      response.write(`retry: ${retryMs}\n\n`)
      return true
    },
    changes(changes) {
      let text = ''
      for (const change of changes) {
        // The note's stored JSON as /get-changes sends it, never parsed and written again.
        text += `id: ${change.cursor}\nevent: change\ndata: {"noteId":${JSON.stringify(change.noteId)},"note":${change.json ?? 'null'}}\n\n`
      }
      response.write(text)
    },
    keepAlive() {
      response.write(': keep-alive\n\n')
    },
    get unsent() {
      return response.writableLength
    },
    end(cut) {
      if (cut) response.destroy()
      else response.end()
    },
  }
}
