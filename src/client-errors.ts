// Answers for requests that never reach a route, in the contract's error shape (docs/contract.md, "Errors").
import type { Socket } from 'node:net'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'

const NOTE_ID_ROUTE = /^\/(edit-note|delete-note|update-note-pinned)\//
const SESSION_ID_ROUTE = /^\/delete-session\//

/** Paths the router cannot look up (bad percent-encoding, a parameter over its length limit): a malformed id is "not found". */
export function answerUnroutable(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?')[0] ?? ''
  const message = NOTE_ID_ROUTE.test(path)
    ? 'Note not found'
    : SESSION_ID_ROUTE.test(path)
      ? 'Session not found'
      : `Route ${request.method} ${path} not found`
  request.log.info({ code: err.code }, 'unroutable request')
  // Outside any route neither the CORS plugin nor app.ts's no-store hook runs.
  void reply
    .code(404)
    .header('access-control-allow-origin', '*')
    .header('cache-control', 'no-store')
    .send({ error: true, message })
}

const MALFORMED: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout: the request was not received in time'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
}

/** Bytes that are not an HTTP request, or one slower than REQUEST_TIMEOUT_MS: answered on the socket, then closed. */
export function answerMalformedRequest(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const [status, message] = MALFORMED[err.code ?? ''] ?? [400, 'Bad Request: malformed HTTP request']
  const body = JSON.stringify({ error: true, message })
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${message.split(':')[0]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    )
  }
  socket.destroy()
}
