// A server-sent events client over a real socket, for the live update tests: it opens GET /stream-changes as any
// client would (a socket of its own, no agent), parses events as EventSource does, and lets a test wait for them.
import { type IncomingHttpHeaders, type IncomingMessage, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'

export interface SseEvent {
  id: string | undefined
  event: string
  data: string
}

export interface SseStream {
  status: number
  headers: IncomingHttpHeaders
  /** The client's port of the connection: which server process holds it can be found from it (/proc/net/tcp). */
  localPort: number
  /** The body of an answer that is not a stream (a 4xx or 5xx), parsed as JSON when it is. */
  body: unknown
  events: SseEvent[]
  comments: string[]
  retry: number | undefined
  /** The id of the last event received: what EventSource sends back as Last-Event-ID. */
  lastEventId(): string | undefined
  /** Resolves once `count` events have arrived; fails after `ms`. */
  waitForEvents(count: number, ms?: number): Promise<SseEvent[]>
  /** Resolves once `count` comments have arrived; fails after `ms`. */
  waitForComments(count: number, ms?: number): Promise<void>
  /** Resolves when the server ends the stream: 'end' for a clean end, 'error' when the connection was cut. */
  ended: Promise<'end' | 'error'>
  /** Closes the client's side. */
  close(): void
}

export const baseOf = (app: FastifyInstance) => `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`

export interface StreamOptions {
  token?: string
  since?: string
  /** More query parameters, sent as they are. */
  query?: Record<string, string>
  lastEventId?: string
  headers?: Record<string, string>
  /** Never read the body: the socket is paused as soon as the headers arrive (a slow reader). */
  paused?: boolean
  /** Fail when no answer (status line) arrives within this long: a connection nobody answers is cut. */
  answerTimeoutMs?: number
}

export function openStream(base: string, options: StreamOptions = {}): Promise<SseStream> {
  const url = new URL('/stream-changes', base)
  if (options.since !== undefined) url.searchParams.set('since', options.since)
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value)
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false })
    req.on('error', reject)
    if (options.answerTimeoutMs !== undefined)
      req.setTimeout(options.answerTimeoutMs, () =>
        req.destroy(new Error(`no answer within ${options.answerTimeoutMs} ms`)),
      )
    req.on('response', (res: IncomingMessage) => {
      // A stream is idle between events: only the wait for its answer is bounded.
      if (options.answerTimeoutMs !== undefined) req.setTimeout(0)
      if (options.paused) {
        res.pause()
        res.socket.pause()
      }
      resolve(streamOf(res, () => req.destroy()))
    })
    req.end()
  })
}

function streamOf(res: IncomingMessage, destroy: () => void): SseStream {
  const events: SseEvent[] = []
  const comments: string[] = []
  const waiting = new Set<() => void>()
  const wake = () => waiting.forEach((w) => w())
  let text = ''
  let lastId: string | undefined
  const stream: SseStream = {
    status: res.statusCode ?? 0,
    headers: res.headers,
    localPort: res.socket.localPort ?? 0,
    body: undefined,
    events,
    comments,
    retry: undefined,
    lastEventId: () => lastId,
    waitForEvents: (count, ms = 5000) =>
      until(() => events.length >= count, `${count} events (got ${events.length})`, ms).then(() =>
        events.slice(0, count),
      ),
    waitForComments: (count, ms = 5000) =>
      until(() => comments.length >= count, `${count} comments (got ${comments.length})`, ms),
    ended: new Promise((resolve) => {
      res.on('end', () => resolve('end'))
      res.on('error', () => resolve('error'))
      res.on('aborted', () => resolve('error'))
      res.on('close', () => resolve(res.complete ? 'end' : 'error'))
    }),
    close: destroy,
  }
  const until = (holds: () => boolean, what: string, ms: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!holds()) return
        clearTimeout(timer)
        waiting.delete(check)
        resolve()
      }
      const timer = setTimeout(() => {
        waiting.delete(check)
        reject(new Error(`waited ${ms} ms for ${what}`))
      }, ms)
      waiting.add(check)
      check()
    })
  const isStream = String(res.headers['content-type'] ?? '').startsWith('text/event-stream')
  res.setEncoding('utf8')
  if (!isStream) {
    res.on('data', (chunk: string) => (text += chunk))
    res.on('end', () => {
      try {
        stream.body = JSON.parse(text)
      } catch {
        stream.body = text
      }
      wake()
    })
    return stream
  }
  res.on('data', (chunk: string) => {
    text += chunk
    for (let at = text.indexOf('\n\n'); at >= 0; at = text.indexOf('\n\n')) {
      const block = text.slice(0, at)
      text = text.slice(at + 2)
      let event: SseEvent | undefined
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          comments.push(line.slice(1).trim())
          continue
        }
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'retry') stream.retry = Number(value)
        else if (field === 'id' || field === 'event' || field === 'data') {
          event ??= { id: undefined, event: 'message', data: '' }
          if (field === 'id') event.id = value
          else if (field === 'event') event.event = value
          else event.data += (event.data ? '\n' : '') + value
        }
      }
      if (event) {
        if (event.id !== undefined) lastId = event.id
        events.push(event)
      }
    }
    wake()
  })
  return stream
}

/** The change an event carries. */
export function changeOf(event: SseEvent): { noteId: string; note: Record<string, unknown> | null } {
  return JSON.parse(event.data) as { noteId: string; note: Record<string, unknown> | null }
}
