// Live update streams (GET /stream-changes, docs/sync.md "Live updates"): each stream sends the change feed's entries
// after its cursor as server-sent events, reads the feed again when the change bus says its account's notes changed
// (and at every heartbeat, in case a notice was lost), checks its session when the bus says the account's sessions
// changed (the version watch tells both of changes made outside the service, version-watch.ts), and ends when the
// session does, when its reader falls too far behind, or when the instance shuts down.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import { ContractError } from '../errors.js'
import type { ChangeBus, ChangeKind } from './change-bus/bus.js'
import type { ChangesAnswer } from './changes.js'
import type { Authenticated } from './sessions.js'
import { TOKEN_LIFETIME_MS } from './tokens.js'

/** The feed after `cursor` (readChanges in changes.ts); rejects with a 410 ContractError for an unusable cursor. */
export type ReadFeed = (userId: string, cursor: string, limit: number) => Promise<ChangesAnswer>

/** The feed's cursor now (currentCursor in changes.ts): where a stream opened without one starts. */
export type CurrentCursor = (userId: string) => Promise<string>

/** Whether the caller's session (or sessionless token) is still admitted; `fresh` bypasses the cache layer. */
export type StillAdmitted = (caller: Authenticated, fresh: boolean) => Promise<boolean>

export interface StreamSettings {
  /** Streams one account may hold on this instance (STREAMS_PER_ACCOUNT). */
  perAccount: number
  /** Streams this instance holds at most (STREAMS_PER_INSTANCE). */
  perInstance: number
  /** A reader whose unsent bytes pass this is disconnected (STREAM_BUFFER_BYTES). */
  bufferBytes: number
  /** Heartbeat comment, feed re-read and session check (STREAM_HEARTBEAT_MS). */
  heartbeatMs: number
  /** The `retry:` hint: how long EventSource waits before reconnecting (STREAM_RETRY_MS). */
  retryMs: number
}

/** Why a stream ended, for the metrics. */
export type StreamEnd = 'client' | 'session' | 'slow-reader' | 'shutdown' | 'cursor-expired'

export interface StreamMetrics {
  opened(): void
  ended(reason: StreamEnd): void
  refused(limit: 'account' | 'instance'): void
  sent(events: number): void
  /** Milliseconds from a bus event's publication to the first event it made this stream write. */
  lag(ms: number): void
}

type Log = Record<'warn', (obj: object, msg: string) => void>

export interface StreamDeps {
  bus: ChangeBus
  readFeed: ReadFeed
  currentCursor: CurrentCursor
  stillAdmitted: StillAdmitted
  settings: StreamSettings
  metrics?: StreamMetrics | undefined
  log?: Log | undefined
}

/** Entries per feed read: the feed's largest page. */
export const STREAM_PAGE = 1000

/** Seconds a refused client waits: an account's slot frees only when one of its streams ends; another instance may have room. */
export const RETRY_AFTER_ACCOUNT_S = 30
export const RETRY_AFTER_INSTANCE_S = 5

export const TOO_MANY_FOR_ACCOUNT = 'Too many live update streams for this account: close one or try again later'
export const TOO_MANY_FOR_INSTANCE = 'Too many live update streams on this server: try again later'

export class LiveStreams {
  private readonly byAccount = new Map<string, Set<LiveStream>>()
  /** Per account, streams open or opening (their first read in flight). */
  private readonly held = new Map<string, number>()
  private heldTotal = 0
  private shuttingDown = false
  private readonly unsubscribe: () => void

  constructor(readonly deps: StreamDeps) {
    this.unsubscribe = deps.bus.subscribe({
      change: (event) => this.changed(event.kind, event.userId, event.publishedAt),
      resync: () => {
        for (const streams of this.byAccount.values()) for (const stream of streams) stream.poke(undefined)
      },
    })
  }

  /**
   * Takes a slot and reads the feed from `cursor` (from now without one): a stream to start, or a ContractError
   * (429, 503, or the feed's 410) thrown before anything is sent.
   */
  async prepare(caller: Authenticated, cursor: string | undefined): Promise<PreparedStream> {
    const userId = caller.account._id
    const { perAccount, perInstance } = this.deps.settings
    if (this.shuttingDown || this.heldTotal >= perInstance) {
      this.deps.metrics?.refused('instance')
      throw new ContractError(503, TOO_MANY_FOR_INSTANCE, true, { 'retry-after': String(RETRY_AFTER_INSTANCE_S) })
    }
    const mine = this.held.get(userId) ?? 0
    if (mine >= perAccount) {
      this.deps.metrics?.refused('account')
      throw new ContractError(429, TOO_MANY_FOR_ACCOUNT, true, { 'retry-after': String(RETRY_AFTER_ACCOUNT_S) })
    }
    this.held.set(userId, mine + 1)
    this.heldTotal++
    let released = false
    const release = () => {
      if (released) return
      released = true
      this.heldTotal--
      const left = (this.held.get(userId) ?? 1) - 1
      if (left > 0) this.held.set(userId, left)
      else this.held.delete(userId)
    }
    try {
      const first: ChangesAnswer =
        cursor === undefined ? { changes: [], cursor: await this.deps.currentCursor(userId), more: false } : await this.deps.readFeed(userId, cursor, STREAM_PAGE)
      return {
        start: (response, headers) => {
          if (this.shuttingDown) {
            release()
            response.writeHead(503, { ...(headers as OutgoingHttpHeaders), 'content-type': 'application/json; charset=utf-8', 'retry-after': String(RETRY_AFTER_INSTANCE_S) })
            response.end(JSON.stringify({ error: true, message: TOO_MANY_FOR_INSTANCE }))
            return
          }
          const stream = new LiveStream(this, caller, first, response, release)
          this.add(userId, stream)
          stream.begin(headers)
        },
        cancel: release,
      }
    } catch (err) {
      release()
      throw err
    }
  }

  /** The account's notes or sessions changed: its streams read the feed, or check their session past the cache. */
  changed(kind: ChangeKind, userId: string, publishedAt?: number): void {
    const streams = this.byAccount.get(userId)
    if (!streams) return
    for (const stream of streams) {
      if (kind === 'notes') stream.poke(publishedAt)
      else stream.checkSession(true)
    }
  }

  /** The accounts that hold a stream here (version-watch.ts). */
  accounts(): Iterable<string> {
    return this.byAccount.keys()
  }

  /** Ends every stream cleanly, at once, and refuses new ones: their clients reconnect to another instance. */
  shutdown(): void {
    this.shuttingDown = true
    for (const streams of [...this.byAccount.values()]) for (const stream of [...streams]) stream.end('shutdown')
    this.unsubscribe()
  }

  private add(userId: string, stream: LiveStream): void {
    let streams = this.byAccount.get(userId)
    if (!streams) this.byAccount.set(userId, (streams = new Set()))
    streams.add(stream)
  }

  /** Called once by each stream as it ends. */
  removed(userId: string, stream: LiveStream): void {
    const streams = this.byAccount.get(userId)
    if (!streams?.delete(stream)) return
    if (streams.size === 0) this.byAccount.delete(userId)
  }
}

/** Headers a reply carried before the stream took it over (Fastify's getHeaders()). */
export type CarriedHeaders = Record<string, string | number | string[] | undefined>

/** A stream whose slot is taken and whose first page is read: the route hijacks the reply, then starts it. */
export interface PreparedStream {
  /** `headers`: what the reply carried so far (CORS), sent with the stream's own. */
  start(response: ServerResponse, headers: CarriedHeaders): void
  /** Gives the slot back when the stream will not start. */
  cancel(): void
}

const isExpiredCursor = (err: unknown) => err instanceof ContractError && err.statusCode === 410

class LiveStream {
  private cursor: string
  private ended = false
  private reading = false
  private readAgain = false
  /** The earliest publication of the notices not yet answered by a read: the fan-out lag's start. */
  private pendingSince: number | undefined
  private checking = false
  private checkAgain: boolean | undefined
  private heartbeat: NodeJS.Timeout | undefined
  private readonly userId: string
  private readonly expiresAt: number

  constructor(
    private readonly hub: LiveStreams,
    private readonly caller: Authenticated,
    private first: ChangesAnswer | undefined,
    private readonly response: ServerResponse,
    private readonly release: () => void,
  ) {
    this.userId = caller.account._id
    this.cursor = first?.cursor ?? ''
    // A stream does not outlive its token: a token without `iat` (0) is bounded by its session alone.
    this.expiresAt = caller.issuedAt > 0 ? caller.issuedAt * 1000 + TOKEN_LIFETIME_MS : Infinity
  }

  begin(headers: CarriedHeaders): void {
    const { response } = this
    const { settings, metrics } = this.hub.deps
    metrics?.opened()
    response.on('close', () => this.end('client'))
    // A client that left during the first read: its 'close' has been and gone.
    if (!response.socket || response.socket.destroyed) return this.end('client')
    // Idle between heartbeats by design: the connection timeout is for requests, not for streams.
    response.socket?.setTimeout(0)
    response.socket?.setKeepAlive(true, settings.heartbeatMs)
    response.writeHead(200, {
      ...(headers as OutgoingHttpHeaders),
      'content-type': 'text/event-stream; charset=utf-8',
      // no-cache for proxies that know no better; no-store as every answer of this API (notes are private).
      'cache-control': 'no-cache, no-store',
      // nginx buffers responses unless told not to: events would wait for its buffer to fill.
      'x-accel-buffering': 'no',
      // The connection ends with the stream, so that shutting down never waits for an idle keep-alive socket.
      connection: 'close',
    })
    this.write(`retry: ${settings.retryMs}\n\n`)
    this.heartbeat = setInterval(() => this.beat(), settings.heartbeatMs)
    const first = this.first
    this.first = undefined
    if (first) this.send(first)
    // Notices published between the first read and now reached no stream: one more read and one session check
    // cover what they told.
    this.poke(undefined)
    this.checkSession(true)
  }

  /** Reads the feed, or once more after the read in flight: a burst of notices costs at most two reads. */
  poke(publishedAt: number | undefined): void {
    if (this.ended) return
    if (publishedAt !== undefined && (this.pendingSince === undefined || publishedAt < this.pendingSince)) this.pendingSince = publishedAt
    if (this.reading) {
      this.readAgain = true
      return
    }
    void this.readLoop()
  }

  /** Ends the stream when the session has ended; `fresh`: asked past every cache (told by the bus). */
  checkSession(fresh: boolean): void {
    if (this.ended) return
    if (this.checking) {
      this.checkAgain = (this.checkAgain ?? false) || fresh
      return
    }
    void this.checkLoop(fresh)
  }

  end(reason: StreamEnd): void {
    if (this.ended) return
    this.ended = true
    clearInterval(this.heartbeat)
    this.hub.removed(this.userId, this)
    this.release()
    this.hub.deps.metrics?.ended(reason)
    // A reader that does not read would never take the final chunk: cut it. The others get a clean end.
    if (reason === 'slow-reader') this.response.destroy()
    else this.response.end()
  }

  private beat(): void {
    if (Date.now() >= this.expiresAt) return this.end('session')
    this.write(': keep-alive\n\n')
    this.poke(undefined)
    this.checkSession(false)
  }

  private async readLoop(): Promise<void> {
    this.reading = true
    try {
      do {
        this.readAgain = false
        const since = this.pendingSince
        this.pendingSince = undefined
        const page = await this.hub.deps.readFeed(this.userId, this.cursor, STREAM_PAGE)
        if (this.ended) return
        const sent = this.send(page)
        if (sent > 0 && since !== undefined) this.hub.deps.metrics?.lag(Math.max(0, Date.now() - since))
        if (page.more) this.readAgain = true
      } while (this.readAgain && !this.ended)
    } catch (err) {
      // The client reconnects with its Last-Event-ID and is told 410 before any event.
      if (isExpiredCursor(err)) this.end('cursor-expired')
      else this.hub.deps.log?.warn({ err }, 'live update stream: reading the change feed failed; trying again at the next heartbeat')
    } finally {
      this.reading = false
    }
  }

  private async checkLoop(fresh: boolean): Promise<void> {
    this.checking = true
    try {
      for (let next: boolean | undefined = fresh; next !== undefined && !this.ended; ) {
        this.checkAgain = undefined
        if (!(await this.hub.deps.stillAdmitted(this.caller, next))) return this.end('session')
        next = this.checkAgain
      }
    } catch (err) {
      this.hub.deps.log?.warn({ err }, 'live update stream: checking its session failed; trying again at the next heartbeat')
    } finally {
      this.checking = false
    }
  }

  /** Writes the page's changes as events; how many. */
  private send(page: ChangesAnswer): number {
    this.cursor = page.cursor
    if (page.changes.length === 0) return 0
    let text = ''
    for (const change of page.changes) {
      // The note's stored JSON as /get-changes sends it, never parsed and written again.
      text += `id: ${change.cursor}\nevent: change\ndata: {"noteId":${JSON.stringify(change.noteId)},"note":${change.json ?? 'null'}}\n\n`
    }
    this.write(text)
    this.hub.deps.metrics?.sent(page.changes.length)
    return page.changes.length
  }

  private write(text: string): void {
    if (this.ended) return
    this.response.write(text)
    // Bytes the response and its socket hold unsent: a reader this far behind is not reading.
    if (this.response.writableLength > this.hub.deps.settings.bufferBytes) this.end('slow-reader')
  }
}
