// The change feed's queries (docs/sync.md, "The change feed"; mirrors sqlite/feed.ts). The triggers of migrations
// 15 and 17 write it, and feed_page() (migration 17's) reads a page under the account's feed lock; here it is called,
// and swept.
import { setTimeout as sleep } from 'node:timers/promises'
import type { Query } from './query.js'
import { type ChangePage, StoreUnavailableError } from '../types.js'

/** Gone notes' changes erased per statement of the sweep; SKIP LOCKED lets sweeps on several instances share the work. */
const SWEEP_BATCH = 500
/** How long a read tries for the feed lock while writers of the account hold it, before it answers 503. */
const LOCK_TRIES_MS = 3000

type PageRow = { locked: boolean; epoch: string; head: string; floor: string; seq: string | null; note_id: string | null; json: string | null }

export class PostgresFeed {
  constructor(private readonly query: Query) {}

  /**
   * A writer holds the lock only between numbering its change and committing, so a read finds it free within a
   * commit or two; it waits a little longer each time, starting at 1 ms.
   */
  async changesSince(userId: string, since: number | undefined, limit: number): Promise<ChangePage | undefined> {
    const started = Date.now()
    for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
      const { rows } = await this.query<PageRow>('feed.page', 'SELECT * FROM feed_page($1, $2, $3, $4)', [userId, since ?? 0, limit, since === undefined])
      const first = rows[0]
      if (!first) return undefined
      if (first.locked) {
        return {
          epoch: first.epoch,
          head: Number(first.head),
          floor: Number(first.floor),
          changes: rows.filter((r) => r.seq !== null).map((r) => ({ seq: Number(r.seq), noteId: r.note_id ?? '', json: r.json })),
        }
      }
      if (Date.now() - started > LOCK_TRIES_MS) throw new StoreUnavailableError('the change feed stayed locked by writers of the account')
      await sleep(wait)
    }
  }

  /** Erases the changes of notes gone before `changedBefore`, raising each account's floor past them: how many. */
  async sweep(changedBefore: string): Promise<number> {
    let total = 0
    for (;;) {
      const { rows } = await this.query<{ n: string }>(
        'feed.sweep',
        `WITH gone AS (
           DELETE FROM note_changes WHERE (user_id, note_id) IN (
             SELECT user_id, note_id FROM note_changes WHERE changed_on < $1 LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)
           RETURNING user_id, seq),
         floors AS (
           UPDATE note_feeds f SET floor = greatest(f.floor, g.seq) FROM (SELECT user_id, max(seq) AS seq FROM gone GROUP BY user_id) g
           WHERE f.user_id = g.user_id)
         SELECT count(*) AS n FROM gone`,
        [changedBefore],
      )
      const n = Number(rows[0]?.n ?? 0)
      total += n
      if (n < SWEEP_BATCH) return total
    }
  }
}
