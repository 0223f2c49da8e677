// The change feed's queries (docs/sync.md, "The change feed"; mirrors sqlite/feed.ts). Migration 15's triggers
// write it; here it is only read, and swept.
import type pg from 'pg'
import { FEED_LOCK_CLASS } from './migrations/0015-change-feed.js'
import { type Query, inTransaction, queryOn } from './query.js'
import type { ChangePage } from '../types.js'

/** Gone notes' changes erased per statement of the sweep; SKIP LOCKED lets sweeps on several instances share the work. */
const SWEEP_BATCH = 500

type PageRow = { epoch: string; head: string; floor: string; seq: string | null; note_id: string | null; json: string | null }

/**
 * The feed and a page of its changes in one statement, so in one snapshot: $1 user, $2 after this number, $3 limit.
 * The head is the highest number the snapshot sees (never below the floor).
 */
const page = (liveOnly: boolean) => `
  SELECT f.epoch, f.floor, greatest(f.floor, (SELECT max(seq) FROM note_changes WHERE user_id = $1)) AS head,
         c.seq, c.note_id, c.json
  FROM note_feeds f
  LEFT JOIN LATERAL (
    SELECT c.seq, c.note_id, n.json FROM note_changes c LEFT JOIN notes n ON n.user_id = c.user_id AND n.id = c.note_id
    WHERE c.user_id = f.user_id AND c.seq > $2 ${liveOnly ? 'AND c.live' : ''} ORDER BY c.seq LIMIT $3
  ) c ON true
  WHERE f.user_id = $1
  ORDER BY c.seq`

export class PostgresFeed {
  constructor(
    private readonly query: Query,
    private readonly pool: pg.Pool,
  ) {}

  /**
   * The exclusive feed lock waits for the account's writers still between numbering a change and committing it, and
   * holds new ones back until the page's snapshot is taken: no number below the page's head commits after it.
   */
  changesSince(userId: string, since: number | undefined, limit: number): Promise<ChangePage | undefined> {
    return inTransaction(this.pool, async (client) => {
      const query = queryOn(client)
      await query('feed.lock', `SELECT pg_advisory_xact_lock(${FEED_LOCK_CLASS}, hashtext($1))`, [userId])
      const { rows } = await query<PageRow>(since === undefined ? 'feed.live' : 'feed.since', page(since === undefined), [userId, since ?? 0, limit])
      const first = rows[0]
      if (!first) return undefined
      return {
        epoch: first.epoch,
        head: Number(first.head),
        floor: Number(first.floor),
        changes: rows.filter((r) => r.seq !== null).map((r) => ({ seq: Number(r.seq), noteId: r.note_id ?? '', json: r.json })),
      }
    })
  }

  /** Erases the changes of notes gone before `changedBefore`, raising each account's floor past them: how many. */
  async sweep(changedBefore: string): Promise<number> {
    let total = 0
    for (;;) {
      const { rows } = await this.query<{ n: string }>(
        'feed.sweep',
        `WITH gone AS (
           DELETE FROM note_changes WHERE (user_id, note_id) IN (
             SELECT user_id, note_id FROM note_changes WHERE NOT live AND changed_on < $1 LIMIT ${SWEEP_BATCH} FOR UPDATE SKIP LOCKED)
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
