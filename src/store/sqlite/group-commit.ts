// Group commit for the SQLite driver. With synchronous=FULL every COMMIT waits for an fsync, so
// the disk bounds single-row commits per second (docs/performance.md, "What shaped the design").
// Writes that arrive while the event loop is busy (parsing other requests, or blocked in the
// previous fsync: better-sqlite3 is synchronous) are queued and run together in one transaction,
// paying one fsync for the whole batch. A write's promise settles only after the COMMIT holding
// it has returned, so nothing is acknowledged before it is on disk.
//
// The batch is flushed on setImmediate: that runs after the poll phase, so one batch holds every
// write whose request was read in the same event-loop turn, and no timer adds latency when the
// server is idle (a lone write commits at once).

/** The transaction primitives the writer needs; the SQLite driver passes its connection's. */
export interface TransactionControl {
  begin(): void
  commit(): void
  rollback(): void
  /** Whether a transaction is open (SQLite may roll one back by itself after some errors). */
  inTransaction(): boolean
}

interface PendingWrite {
  run: () => unknown
  resolve: (value: unknown) => void
  reject: (reason: unknown) => void
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }

/** Longest batch: bounds the transaction size and the time the event loop is held. */
export const MAX_BATCH = 1000

export class GroupCommitWriter {
  private queue: PendingWrite[] = []
  private scheduled = false
  /** Number of transactions committed or attempted; the tests and the bench read it. */
  batches = 0

  constructor(
    private readonly tx: TransactionControl,
    private readonly schedule: (flush: () => void) => void = (flush) => void setImmediate(flush),
  ) {}

  /**
   * Queues a synchronous write and resolves to its result once its transaction has committed.
   * The write must not open or end a transaction itself.
   */
  write<T>(run: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (value: unknown) => void, reject })
      if (!this.scheduled) {
        this.scheduled = true
        this.schedule(() => this.flush())
      }
    })
  }

  /** Commits everything queued now (also called on close, so no queued write is dropped). */
  flush(): void {
    this.scheduled = false
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH)
      this.commitBatch(batch)
    }
  }

  private commitBatch(batch: PendingWrite[]): void {
    this.batches++
    const outcomes: Outcome[] = []
    try {
      this.tx.begin()
      for (const write of batch) {
        try {
          outcomes.push({ ok: true, value: write.run() })
        } catch (error) {
          // A constraint error undoes only its own statement; other errors (disk full, I/O)
          // may roll the whole transaction back, and then the batch cannot commit.
          if (!this.tx.inTransaction()) throw error
          outcomes.push({ ok: false, error })
        }
      }
      this.tx.commit()
    } catch (error) {
      if (this.tx.inTransaction()) {
        try {
          this.tx.rollback()
        } catch {
          // the original error is the one worth reporting
        }
      }
      for (const write of batch) write.reject(error)
      return
    }
    batch.forEach((write, i) => {
      const outcome = outcomes[i] as Outcome
      if (outcome.ok) write.resolve(outcome.value)
      else write.reject(outcome.error)
    })
  }
}
