// Keeps the replica current with the change feed: catches up with GET /get-changes (a 410 lists
// everything again), lets the outbox go, then holds GET /stream-changes and applies each change as
// it comes. A stream that ends or fails is opened again with Last-Event-ID after a growing wait
// (the stream's `retry:`, 1 s until it sends one, doubling to 30 s, with jitter; or the server's
// Retry-After), at once when woken (the browser is online again, the person asked).
import { type Client, CursorExpired, StreamRefused, changesSince, holdStream, listAll, statusOf } from './feed'
import type { Replica } from './replica'

/** What the follower tells the engine that owns it. */
export interface FollowerEvents {
  /** The server answered. */
  reached(): void
  /** The network failed: the next try waits. */
  unreachable(): void
  /** The replica changed: the notes shown change. */
  changed(): void
  /** The replica has caught up with the feed: what waits in the outbox can go. */
  caughtUp(): void
  sessionEnded(): void
  /** The first listing failed and there is no replica to show. */
  loadFailed(message: string): void
}

const MAX_WAIT_MS = 30_000

export class FeedFollower {
  private stopped = false
  private failures = 0
  /** The first wait before reconnecting: the stream's own `retry:` field, 1 s until it sends one. */
  private retryMs = 1000
  private readonly abort = new AbortController()
  private streamAbort: AbortController | undefined
  private wakeUp: () => void = () => undefined

  constructor(
    private readonly token: string,
    private readonly client: Client,
    private readonly replica: Replica,
    private readonly events: FollowerEvents,
  ) {}

  stop(): void {
    this.stopped = true
    this.abort.abort()
    this.wake()
  }

  /** Ends the wait before the next try. */
  wake(): void {
    this.wakeUp()
  }

  /** Tries again now, the wait starting from the shortest. */
  retry(): void {
    this.failures = 0
    this.wake()
  }

  /** Ends the stream held now (the browser says it is offline: the stream would notice only at its next heartbeat). */
  dropStream(): void {
    this.streamAbort?.abort()
  }

  /** Follows the feed until stopped or the session ends. */
  async run(): Promise<void> {
    while (!this.stopped) {
      if (!navigator.onLine) {
        await this.sleep(MAX_WAIT_MS)
        continue
      }
      let wait: number | undefined
      try {
        await this.catchUp()
        // The server answers: the next wait starts from the shortest again.
        this.failures = 0
        this.events.caughtUp()
        this.streamAbort = new AbortController()
        const signal = AbortSignal.any([this.abort.signal, this.streamAbort.signal])
        await holdStream(
          this.client,
          this.token,
          this.replica.cursor!,
          (change, cursor) => {
            this.failures = 0
            this.replica.apply([change], cursor)
            this.events.changed()
          },
          signal,
          (ms) => (this.retryMs = ms),
        )
      } catch (err) {
        if (this.stopped) return
        if (statusOf(err) === 401) return this.events.sessionEnded()
        if (err instanceof CursorExpired) {
          this.replica.cursor = undefined
          continue
        }
        if (err instanceof StreamRefused && err.retryAfterSeconds) wait = err.retryAfterSeconds * 1000
        else if (!(err instanceof StreamRefused) && !(err instanceof DOMException && err.name === 'AbortError'))
          this.events.unreachable()
        if (!this.replica.listed) this.events.loadFailed(err instanceof Error ? err.message : String(err))
      }
      this.failures++
      const backoff = Math.min(MAX_WAIT_MS, this.retryMs * 2 ** Math.min(this.failures - 1, 5))
      await this.sleep(wait ?? backoff * (0.5 + Math.random() / 2))
    }
  }

  private async catchUp(): Promise<void> {
    const signal = this.abort.signal
    const replica = this.replica
    if (replica.cursor !== undefined) {
      const { changes, cursor } = await changesSince(this.client, this.token, replica.cursor, signal)
      replica.apply(changes, cursor)
    } else {
      const { notes, cursor } = await listAll(this.client, this.token, signal)
      await replica.replace(notes, cursor)
    }
    this.events.reached()
    this.events.changed()
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        resolve()
      }
      this.wakeUp = done
    })
  }
}
