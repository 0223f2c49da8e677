// The change feed's queries (docs/sync.md, "The change feed"; mirrors sqlite/feed.ts). Migration 15's triggers
// write it; here it is only read, and swept.
import type { ChangePage } from '../types.js'
import type { Query } from './query.js'

/** Gone notes' changes erased per statement of the sweep; SKIP LOCKED lets sweeps on several instances share the work. */
const SWEEP_BATCH = 500

type PageRow = { epoch: string; head: string; floor: string; seq: string | null; note_id: string | null; json: string | null }

/** The feed and a page of its changes in one statement, so in one snapshot: $1 user, $2 after this number, $3 limit. */
const page = (liveOnly: boolean) => `
  SELECT f.epoch, f.head, f.floor, c.seq, c.note_id, c.json FROM note_feeds f
  LEFT JOIN LATERAL (
    SELECT c.seq, c.note_id, n.json FROM note_changes c LEFT JOIN notes n ON n.user_id = c.user_id AND n.id = c.note_id
    WHERE c.user_id = f.user_id AND c.seq > $2 ${liveOnly ? 'AND c.live' : ''} ORDER BY c.seq LIMIT $3
  ) c ON true
  WHERE f.user_id = $1
  ORDER BY c.seq`

export class PostgresFeed {
  constructor(private readonly query: Query) {}

  async changesSince(userId: string, since: number | undefined, limit: number): Promise<ChangePage | undefined> {
    const { rows } = await this.query<PageRow>(
      since === undefined ? 'feed.live' : 'feed.since',
      page(since === undefined),
      [userId, since ?? 0, limit],
    )
    const first = rows[0]
    if (!first) return undefined
    return {
      epoch: first.epoch,
      head: Number(first.head),
      floor: Number(first.floor),
      changes: rows.filter((r) => r.seq !== null).map((r) => ({ seq: Number(r.seq), noteId: r.note_id ?? '', json: r.json })),
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
