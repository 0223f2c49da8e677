// Live update streams (GET /stream-changes, docs/sync.md "Live updates"): which may open, and telling the open ones what
// changed. A stream takes a slot of its account and of the instance before its first read, so that a limit is a JSON
// answer; the change bus (and the version watch, version-watch.ts, for changes made outside the service) says whose
// notes or sessions changed, and each of that account's streams reads the feed or checks its session (live-stream.ts).
import { ContractError } from '../errors.js'
import type { ChangeBus, ChangeKind } from './change-bus/bus.js'
import type { ChangesAnswer } from './changes.js'
import { LiveStream, type LiveStreamDeps, STREAM_PAGE, type StreamOutput } from './live-stream.js'
import type { Authenticated } from './sessions.js'

export type { StreamMetrics, StreamSettings } from './live-stream.js'

/** The feed's cursor now (currentCursor in changes.ts): where a stream opened without one starts. */
export type CurrentCursor = (userId: string) => Promise<string>

export interface StreamDeps extends LiveStreamDeps {
  bus: ChangeBus
  currentCursor: CurrentCursor
}

/** Seconds a refused client waits: an account's slot frees only when one of its streams ends; another instance may have room. */
export const RETRY_AFTER_ACCOUNT_S = 30
export const RETRY_AFTER_INSTANCE_S = 5

export const TOO_MANY_FOR_ACCOUNT = 'Too many live update streams for this account: close one or try again later'
export const TOO_MANY_FOR_INSTANCE = 'Too many live update streams on this server: try again later'

/** A stream whose slot is taken and whose first page is read: the route hands the reply over, then starts it. */
export interface PreparedStream {
  /** Starts the stream on `output`; false (the slot given back) when the instance began shutting down meanwhile. */
  start(output: StreamOutput): boolean
  /** Gives the slot back when the stream will not start. */
  cancel(): void
}

export class LiveStreams {
  private readonly byAccount = new Map<string, Set<LiveStream>>()
  /** Per account, the slots of streams open or opening (their first read in flight). */
  private readonly slotsByAccount = new Map<string, number>()
  private slotsTaken = 0
  private shuttingDown = false
  private readonly unsubscribe: () => void

  constructor(readonly deps: StreamDeps) {
    this.unsubscribe = deps.bus.subscribe({
      change: (event) => this.changed(event.kind, event.userId, event.publishedAt),
      resync: () => {
        for (const streams of this.byAccount.values()) for (const stream of streams) stream.requestRead(undefined)
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
    if (this.shuttingDown || this.slotsTaken >= perInstance) {
      this.deps.metrics?.refused('instance')
      throw new ContractError(503, TOO_MANY_FOR_INSTANCE, true, { 'retry-after': String(RETRY_AFTER_INSTANCE_S) })
    }
    const mine = this.slotsByAccount.get(userId) ?? 0
    if (mine >= perAccount) {
      this.deps.metrics?.refused('account')
      throw new ContractError(429, TOO_MANY_FOR_ACCOUNT, true, { 'retry-after': String(RETRY_AFTER_ACCOUNT_S) })
    }
    this.slotsByAccount.set(userId, mine + 1)
    this.slotsTaken++
    let released = false
    const release = () => {
      if (released) return
      released = true
      this.slotsTaken--
      const left = (this.slotsByAccount.get(userId) ?? 1) - 1
      if (left > 0) this.slotsByAccount.set(userId, left)
      else this.slotsByAccount.delete(userId)
    }
    try {
      const first: ChangesAnswer =
        cursor === undefined
          ? { changes: [], cursor: await this.deps.currentCursor(userId), more: false }
          : await this.deps.readFeed(userId, cursor, STREAM_PAGE)
      return {
        start: (output) => {
          if (this.shuttingDown) {
            release()
            return false
          }
          const stream: LiveStream = new LiveStream(this.deps, caller, first, output, () => {
            this.remove(userId, stream)
            release()
          })
          this.add(userId, stream)
          stream.begin()
          return true
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
      if (kind === 'notes') stream.requestRead(publishedAt)
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

  private remove(userId: string, stream: LiveStream): void {
    const streams = this.byAccount.get(userId)
    if (!streams?.delete(stream)) return
    if (streams.size === 0) this.byAccount.delete(userId)
  }
}
