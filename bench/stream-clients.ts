// The clients of the live-update tools (idle-streams.ts, sync-latency.ts), each on a socket of its
// own, so a tool knows which connection, and so which `serve --workers` worker, carries what:
// - openStream: GET /stream-changes with the bearer in the Authorization header, the
//   text/event-stream framing parsed as it arrives, each event handed over with the moment its
//   last byte was read (performance.now());
// - KeepAliveClient: JSON requests over one kept-alive connection, each answer with its
//   connection's client port;
// - processOfConnection: which process holds the server end of a loopback connection, from Linux
//   /proc: the connection's row in /proc/net/tcp gives the socket's inode, and the worker whose
//   open files include that socket holds it (the cluster primary hands accepted connections to a
//   worker and closes its own copy).
import { readFileSync, readdirSync, readlinkSync } from 'node:fs'
import { Agent, type ClientRequest, type IncomingMessage, request } from 'node:http'

// GET /stream-changes

export interface ChangeEvent {
  id: string | undefined
  event: string
  data: string
  /** performance.now() when the event's terminating blank line was read. */
  at: number
}

export interface OpenStream {
  /** The client end's port: the server end of the connection is found by it (processOfConnection). */
  localPort: number
  headers: IncomingMessage['headers']
  /** Events as they arrive; replaced by the caller. */
  onEvent: (event: ChangeEvent) => void
  /** Resolves when the server ends the stream or the socket closes. */
  ended: Promise<void>
  close(): void
}

export class StreamRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly retryAfter: string | undefined,
  ) {
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
      if (this.data.length > 0)
        this.emit({ id: this.id, event: this.event || 'message', data: this.data.join('\n'), at })
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
export function openStream(
  url: string,
  authorization: string,
  options: { since?: string; lastEventId?: string; timeoutMs?: number } = {},
): Promise<OpenStream> {
  const target = new URL('/stream-changes', url)
  if (options.since !== undefined) target.searchParams.set('since', options.since)
  const headers: Record<string, string> = { authorization, accept: 'text/event-stream' }
  if (options.lastEventId !== undefined) headers['last-event-id'] = options.lastEventId
  return new Promise((resolve, reject) => {
    // agent: false: one connection per stream, closed with it.
    const req: ClientRequest = request(target, { headers, agent: false })
    const timer = setTimeout(
      () => req.destroy(new Error('no answer to GET /stream-changes within the timeout')),
      options.timeoutMs ?? 30_000,
    )
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

// JSON requests over one kept-alive connection

export interface Answer {
  status: number
  body: string
  /** The client end's port of the connection that carried the request. */
  localPort: number
  /** performance.now() when the answer's last byte was read. */
  at: number
}

export class KeepAliveClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 })
  constructor(
    private readonly url: string,
    private readonly authorization: string,
  ) {}

  send(method: string, path: string, body?: unknown): Promise<Answer> {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const headers: Record<string, string> = { authorization: this.authorization }
    if (payload !== undefined) headers['content-type'] = 'application/json'
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, this.url), { method, headers, agent: this.agent }, (res) => {
        // Read now: once the answer ends, the socket goes back to the agent's pool.
        const localPort = res.socket.localPort ?? 0
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.once('end', () => resolve({ status: res.statusCode ?? 0, body: text, localPort, at: performance.now() }))
        res.once('error', reject)
      })
      req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer within 30 s`)))
      req.once('error', reject)
      req.end(payload)
    })
  }

  close(): void {
    this.agent.destroy()
  }
}

// The process at the server end of a connection

const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, '0')

/** The inode of the socket whose local port is `serverPort` and remote port `clientPort`. */
function serverSocketInode(serverPort: number, clientPort: number): string | undefined {
  const local = `:${hexPort(serverPort)}`
  const remote = `:${hexPort(clientPort)}`
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/)
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
    if (fields[1]?.endsWith(local) && fields[2]?.endsWith(remote)) return fields[9]
  }
  return undefined
}

/** Child processes of `pid` (the cluster's workers). */
export function childrenOf(pid: number): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (parent === pid) children.push(Number(entry))
    } catch {
      // the process ended while we looked
    }
  }
  return children.sort((a, b) => a - b)
}

/** Which of `pids` holds the server end of the connection from `clientPort` to `serverPort`. */
export function processOfConnection(
  pids: readonly number[],
  serverPort: number,
  clientPort: number,
): number | undefined {
  const inode = serverSocketInode(serverPort, clientPort)
  if (inode === undefined) return undefined
  const target = `socket:[${inode}]`
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return pid
      } catch {
        // closed while we looked
      }
    }
  }
  return undefined
}
