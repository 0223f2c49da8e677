// Group commit: with synchronous=FULL every COMMIT waits for an fsync, so the writes of one turn
// of the event loop share one transaction, flushed on setImmediate (no timer delays a lone write).
// A write's promise settles only after the COMMIT holding it has returned (docs/performance.md).

/** The transaction primitives the writer needs; the SQLite driver passes its connection's. */
export interface TransactionControl {
  begin(): void
  commit(): void
  rollback(): void
  /** Whether a transaction is open (SQLite may roll one back by itself after some errors). */
  inTransaction(): boolean
}

type PendingWrite = { run: () => unknown; resolve: (value: unknown) => void; reject: (reason: unknown) => void }

/** Longest batch: bounds the transaction size and the time the event loop is held. */
export const MAX_BATCH = 1000

export class GroupCommitWriter {
  private queue: PendingWrite[] = []
  private scheduled = false
  /** Transactions committed or attempted. */
  batches = 0

  constructor(
    private readonly tx: TransactionControl,
    private readonly schedule: (flush: () => void) => void = (flush) => void setImmediate(flush),
  ) {}

  /** Queues a synchronous write, which must not open or end a transaction itself; resolves once committed. */
  write<T>(run: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (value: unknown) => void, reject })
      if (!this.scheduled) {
        this.scheduled = true
        this.schedule(() => this.flush())
      }
    })
  }

  /** Commits everything queued now (also on close, so no queued write is dropped). */
  flush(): void {
    this.scheduled = false
    while (this.queue.length > 0) this.commitBatch(this.queue.splice(0, MAX_BATCH))
  }

  private commitBatch(batch: PendingWrite[]): void {
    this.batches++
    const settles: (() => void)[] = []
    try {
      this.tx.begin()
      for (const write of batch) {
        try {
          const value = write.run()
          settles.push(() => write.resolve(value))
        } catch (error) {
          // A constraint error undoes only its own statement; others (disk full, I/O) may roll
          // the whole transaction back, and then the batch cannot commit.
          if (!this.tx.inTransaction()) throw error
          settles.push(() => write.reject(error))
        }
      }
      this.tx.commit()
    } catch (error) {
      try {
        if (this.tx.inTransaction()) this.tx.rollback()
      } catch {
        // the original error is the one worth reporting
      }
      for (const write of batch) write.reject(error)
      return
    }
    for (const settle of settles) settle()
  }
}

/** The driver's writes: each resolves once its group commit is on disk; `adding` (data) waits first for the disk to have room (free-space.ts). */
export type Writes = Record<'write' | 'adding', GroupCommitWriter['write']>
