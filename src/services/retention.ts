// The sweep that erases for good what the trash and history keep no longer (docs/history.md). Every instance and
// worker runs it: its deletes are idempotent and batched, so sweeps running at once share the work.
import type { FastifyBaseLogger } from 'fastify'
import type { RetentionConfig } from '../config.js'
import type { Store, SweepCutoffs } from '../store/types.js'
import { revisionsKept } from '../store/limits.js'

const DAY_MS = 86_400_000
/** How often a process sweeps, after a first sweep a minute after it starts. */
export const SWEEP_INTERVAL_MS = 60 * 60 * 1000
const FIRST_SWEEP_MS = 60 * 1000

/** What is older than its retention at `now`; a retention of 0 keeps nothing. */
export function cutoffsAt(retention: RetentionConfig, now: number): SweepCutoffs {
  const before = (days: number) => new Date(now - days * DAY_MS).toISOString()
  return {
    trashedBefore: before(retention.trashDays),
    replacedBefore: revisionsKept(retention) > 0 ? before(retention.historyDays) : new Date(now + DAY_MS).toISOString(),
    changedBefore: before(retention.changesDays),
  }
}

/** Sweeps now and then until stopped; a failed sweep is logged and the next one tries again. */
export function startSweeps(store: Store, retention: RetentionConfig, log: FastifyBaseLogger): () => void {
  const sweep = () =>
    store.sweep(cutoffsAt(retention, Date.now())).then(
      (erased) => {
        if (erased.notes + erased.revisions + erased.changes > 0) log.info({ erased }, 'retention sweep')
      },
      (err: unknown) => log.warn({ err }, 'retention sweep failed'),
    )
  const first = setTimeout(() => void sweep(), FIRST_SWEEP_MS).unref()
  const every = setInterval(() => void sweep(), SWEEP_INTERVAL_MS).unref()
  return () => {
    clearTimeout(first)
    clearInterval(every)
  }
}
