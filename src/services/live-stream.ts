// One live update stream (GET /stream-changes, docs/sync.md "Live updates"): it sends the change feed's entries after
// its cursor, reads the feed again when told that its account's notes changed (and at every heartbeat, in case a notice
// was lost), checks its session when told that the account's sessions changed, and ends when the session does, when
// its reader falls too far behind, or when the instance shuts down. Which streams may open is streams.ts's; what goes
// on the wire is the HTTP layer's (routes/stream-wire.ts).
import { ContractError } from '../errors.js'
import type { Change, ChangesAnswer } from './changes.js'
import type { Authenticated } from './sessions.js'
import { TOKEN_LIFETIME_MS } from './tokens.js'

/** The feed after `cursor` (readChanges in changes.ts); rejects with a 410 ContractError for an unusable cursor. */
export type ReadFeed = (userId: string, cursor: string, limit: number) => Promise<ChangesAnswer>

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

/** What one stream reads, checks and reports through. */
export interface LiveStreamDeps {
  readFeed: ReadFeed
  stillAdmitted: StillAdmitted
  settings: StreamSettings
  metrics?: StreamMetrics | undefined
  log?: Log | undefined
}

/** Where a stream's events go: server-sent events, written by the HTTP layer (routes/stream-wire.ts). */
export interface StreamOutput {
  /** Starts the answer and calls `closed` when the client leaves; false when it has left already. */
  open(settings: Pick<StreamSettings, 'heartbeatMs' | 'retryMs'>, closed: () => void): boolean
  /** Each change as an event whose id is its cursor. */
  changes(changes: readonly Change[]): void
  /** A comment that carries nothing but shows the connection alive. */
  keepAlive(): void
  /** Bytes written and not yet sent. */
  readonly unsent: number
  /** Ends the answer; `cut`: drops the connection instead, as a reader that does not read would never take the end. */
  end(cut: boolean): void
}

/** Entries per feed read: the feed's largest page. */
export const STREAM_PAGE = 1000

const isExpiredCursor = (err: unknown) => err instanceof ContractError && err.statusCode === 410

export class LiveStream {
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

  /** `first`: the page read before the stream was admitted; `onEnd`: gives the stream's slot back, once. */
  constructor(
    private readonly deps: LiveStreamDeps,
    private readonly caller: Authenticated,
    private first: ChangesAnswer | undefined,
    private readonly output: StreamOutput,
    private readonly onEnd: () => void,
  ) {
    this.userId = caller.account._id
    this.cursor = first?.cursor ?? ''
    // A stream does not outlive its token: a token without `iat` (0) is bounded by its session alone.
    this.expiresAt = caller.issuedAt > 0 ? caller.issuedAt * 1000 + TOKEN_LIFETIME_MS : Infinity
  }

  begin(): void {
    const { settings, metrics } = this.deps
    metrics?.opened()
    // A client that left during the first read: its 'close' has been and gone.
    if (!this.output.open(settings, () => this.end('client'))) return this.end('client')
    this.checkBacklog()
    this.heartbeat = setInterval(() => this.beat(), settings.heartbeatMs)
    const first = this.first
    this.first = undefined
    if (first) this.send(first)
    // Notices published between the first read and now reached no stream: one more read and one session check
    // cover what they told.
    this.requestRead(undefined)
    this.checkSession(true)
  }

  /** Reads the feed, or once more after the read in flight: a burst of notices costs at most two reads. */
  requestRead(publishedAt: number | undefined): void {
    if (this.ended) return
    if (publishedAt !== undefined && (this.pendingSince === undefined || publishedAt < this.pendingSince))
      this.pendingSince = publishedAt
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
    this.onEnd()
    this.deps.metrics?.ended(reason)
    // A reader that does not read would never take the final chunk: cut it. The others get a clean end.
    this.output.end(reason === 'slow-reader')
  }

  private beat(): void {
    if (Date.now() >= this.expiresAt) return this.end('session')
    this.write((output) => output.keepAlive())
    this.requestRead(undefined)
    this.checkSession(false)
  }

  private async readLoop(): Promise<void> {
    this.reading = true
    try {
      do {
        this.readAgain = false
        const since = this.pendingSince
        this.pendingSince = undefined
        const page = await this.deps.readFeed(this.userId, this.cursor, STREAM_PAGE)
        if (this.ended) return
        const sent = this.send(page)
        if (sent > 0 && since !== undefined) this.deps.metrics?.lag(Math.max(0, Date.now() - since))
        if (page.more) this.readAgain = true
      } while (this.readAgain && !this.ended)
    } catch (err) {
      // The client reconnects with its Last-Event-ID and is told 410 before any event.
      if (isExpiredCursor(err)) this.end('cursor-expired')
      else
        this.deps.log?.warn(
          { err },
          'live update stream: reading the change feed failed; trying again at the next heartbeat',
        )
    } finally {
      this.reading = false
    }
  }

  private async checkLoop(fresh: boolean): Promise<void> {
    this.checking = true
    try {
      for (let next: boolean | undefined = fresh; next !== undefined && !this.ended;) {
        this.checkAgain = undefined
        if (!(await this.deps.stillAdmitted(this.caller, next))) return this.end('session')
        next = this.checkAgain
      }
    } catch (err) {
      this.deps.log?.warn(
        { err },
        'live update stream: checking its session failed; trying again at the next heartbeat',
      )
    } finally {
      this.checking = false
    }
  }

  /** Writes the page's changes as events; how many. */
  private send(page: ChangesAnswer): number {
    this.cursor = page.cursor
    if (page.changes.length === 0) return 0
    this.write((output) => output.changes(page.changes))
    this.deps.metrics?.sent(page.changes.length)
    return page.changes.length
  }

  private write(put: (output: StreamOutput) => void): void {
    if (this.ended) return
    put(this.output)
    this.checkBacklog()
  }

  /** Bytes the response and its socket hold unsent: a reader this far behind is not reading. */
  private checkBacklog(): void {
    if (this.output.unsent > this.deps.settings.bufferBytes) this.end('slow-reader')
  }
}
