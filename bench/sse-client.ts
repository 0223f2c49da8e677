// A minimal client of GET /stream-changes for the live-update benches: node:http on a socket of
// its own (so the bench knows which connection, and so which worker, holds the stream), the
// bearer in the Authorization header, and the text/event-stream framing parsed as it arrives.
// Each event is handed over with the moment its last byte was read (performance.now()).
import { type ClientRequest, type IncomingMessage, request } from 'node:http'

export interface ChangeEvent {
  id: string | undefined
  event: string
  data: string
  /** performance.now() when the event's terminating blank line was read. */
  at: number
}

export interface OpenStream {
  /** The client end's port: the server end of the connection is found by it (process-of-socket.ts). */
  localPort: number
  headers: IncomingMessage['headers']
  /** Events as they arrive; replaced by the caller. */
  onEvent: (event: ChangeEvent) => void
  /** Resolves when the server ends the stream or the socket closes. */
  ended: Promise<void>
  close(): void
}

export class StreamRefused extends Error {
  constructor(readonly status: number, readonly body: string, readonly retryAfter: string | undefined) {
    super(`GET /stream-changes answered ${status}: ${body.slice(0, 200)}`)
  }
}

/** Splits a text/event-stream body into events (the WHATWG rules the service's events need). */
export class EventStreamParser {
  private buffer = ''
  private id: string | undefined
  private event = ''
  private data: string[] = []
  constructor(private readonly emit: (event: ChangeEvent) => void) {}

  push(chunk: string, at: number): void {
    this.buffer += chunk
    for (;;) {
      const newline = this.buffer.search(/\r\n|\r|\n/)
      if (newline < 0) return
      const line = this.buffer.slice(0, newline)
      this.buffer = this.buffer.slice(newline + (this.buffer.startsWith('\r\n', newline) ? 2 : 1))
      this.line(line, at)
    }
  }

  private line(line: string, at: number): void {
    if (line === '') {
      if (this.data.length > 0) this.emit({ id: this.id, event: this.event || 'message', data: this.data.join('\n'), at })
      this.event = ''
      this.data = []
      return
    }
    if (line.startsWith(':')) return // a comment: the heartbeat
    const colon = line.indexOf(':')
    const field = colon < 0 ? line : line.slice(0, colon)
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
    if (field === 'data') this.data.push(value)
    else if (field === 'event') this.event = value
    else if (field === 'id') this.id = value
  }
}

/**
 * Opens a stream; resolves once the 200 answer's headers are read, rejects with StreamRefused
 * for any other status. `since` and `lastEventId` are sent only when given.
 */
export function openStream(url: string, authorization: string, options: { since?: string; lastEventId?: string; timeoutMs?: number } = {}): Promise<OpenStream> {
  const target = new URL('/stream-changes', url)
  if (options.since !== undefined) target.searchParams.set('since', options.since)
  const headers: Record<string, string> = { authorization, accept: 'text/event-stream' }
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId
  return new Promise((resolve, reject) => {
    // agent: false: one connection per stream, closed with it.
    const req: ClientRequest = request(target, { headers, agent: false })
    const timer = setTimeout(() => req.destroy(new Error('no answer to GET /stream-changes within the timeout')), options.timeoutMs ?? 30_000)
    req.once('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    req.once('response', (res) => {
      clearTimeout(timer)
      if (res.statusCode !== 200) {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.once('end', () => reject(new StreamRefused(res.statusCode ?? 0, body, res.headers['retry-after'])))
        return
      }
      const stream: OpenStream = {
        localPort: req.socket?.localPort ?? 0,
        headers: res.headers,
        onEvent: () => {},
        ended: new Promise((done) => {
          res.once('close', done)
          res.once('error', done)
        }),
        close: () => req.destroy(),
      }
      // Errors after the answer (a reset at shutdown) end the stream; `ended` reports them.
      req.on('error', () => {})
      const parser = new EventStreamParser((event) => stream.onEvent(event))
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => parser.push(chunk, performance.now()))
      resolve(stream)
    })
    req.end()
  })
}
