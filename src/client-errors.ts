// Answers for requests that never reach a route, in the contract's error shape
// `{error: true, message}` (docs/contract.md, "Errors") instead of Fastify's own
// `{error, code, statusCode}` bodies. The attack tests in test/security/ send both kinds of request.
import type { Socket } from 'node:net'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'

/** The routes whose last path segment is a noteId. */
const NOTE_ID_ROUTE = /^\/(edit-note|delete-note|update-note-pinned)\//
/** The route whose last path segment is a sessionId (docs/accounts.md). */
const SESSION_ID_ROUTE = /^\/delete-session\//

/**
 * Requests the router cannot even look up: a path with invalid percent-encoding (`%FF`) or a
 * parameter over the router's length limit. A noteId that cannot be decoded or is too long is
 * a malformed id, so 404 "Note not found" (docs/contract.md, "Ids"), and a sessionId likewise
 * "Session not found"; any other such path is an unknown route.
 */
export function answerUnroutable(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split('?')[0] ?? ''
  const message = NOTE_ID_ROUTE.test(path)
    ? 'Note not found'
    : SESSION_ID_ROUTE.test(path)
      ? 'Session not found'
      : `Route ${request.method} ${path} not found`
  request.log.info({ code: err.code }, 'unroutable request')
  // Fastify answers these outside any route, so neither the CORS plugin nor app.ts's no-store
  // hook runs: both headers are set here.
  void reply.code(404).header('access-control-allow-origin', '*').header('cache-control', 'no-store').send({ error: true, message })
}

const MALFORMED: Record<string, [number, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout: the request was not received in time'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large'],
}

/**
 * Bytes that are not a valid HTTP request (a body without framing, a bad header line), or a
 * request that took longer than REQUEST_TIMEOUT_MS: Node's parser gives up before Fastify sees a
 * request, so this writes the answer on the socket and closes it, as Fastify's default does.
 */
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
