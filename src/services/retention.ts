// The sweep that erases for good what the trash and history keep no longer (docs/history.md). Every instance and
// worker runs it: its deletes are idempotent and batched, so sweeps running at once share the work.
import type { FastifyBaseLogger } from 'fastify'
import type { RetentionConfig } from '../config.js'
import type { Store, SweepCutoffs } from '../store/types.js'
import { revisionsKept } from '../store/limits.js'
import { sweepAttachments } from './attachments-sweep.js'
import type { BlobStorage } from '../blobs/types.js'

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

/** What the attachment sweep (attachments-sweep.ts) erases from, and after how long unlinked. */
export interface AttachmentRetention {
  blobs: BlobStorage
  graceDays: number
}

/**
 * Sweeps now and then until stopped, the attachments after the notes (whose erasure unlinks them); a failed sweep is
 * logged and the next one tries again.
 */
export function startSweeps(
  store: Store,
  retention: RetentionConfig,
  log: FastifyBaseLogger,
  attachments?: AttachmentRetention,
): () => void {
  const sweep = async () => {
    try {
      const erased = await store.sweep(cutoffsAt(retention, Date.now()))
      if (erased.notes + erased.revisions + erased.changes > 0) log.info({ erased }, 'retention sweep')
    } catch (err) {
      log.warn({ err }, 'retention sweep failed')
    }
    if (!attachments) return
    try {
      const erased = await sweepAttachments(store, attachments.blobs, attachments.graceDays)
      if (erased.records + erased.orphans + erased.unfinished > 0) log.info({ erased }, 'attachment sweep')
    } catch (err) {
      log.warn({ err }, 'attachment sweep failed')
    }
  }
  const first = setTimeout(() => void sweep(), FIRST_SWEEP_MS).unref()
  const every = setInterval(() => void sweep(), SWEEP_INTERVAL_MS).unref()
  return () => {
    clearTimeout(first)
    clearInterval(every)
  }
}
