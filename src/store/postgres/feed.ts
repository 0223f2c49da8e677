// The change feed section of the PostgreSQL driver (docs/sync.md, "The change feed"; mirrors sqlite/feed.ts;
// store/feed.ts). The triggers of migrations 15 and 17 write it, and feed_page() (migration 17's) reads a page under
// the account's feed lock; here it is called, and swept (trash-history.ts runs the sweep).
import { setTimeout as sleep } from 'node:timers/promises'
import type { Query } from './query.js'
import { StoreUnavailableError } from '../errors.js'
import type { ChangePage, FeedStore } from '../feed.js'
import { SWEEP_BATCH, sweepInBatches } from '../trash-history.js'
import { FEED_LOCK_CLASS } from './migrations/0015-change-feed.js'
/**
 * How long a read waits for the writers that held the account's feed lock when it first tried it, before it answers
 * 503. An import batch commits well within it; a transaction that writes a note and then stays open that long is an
 * operator's session left open, and the read does not wait for it.
 */
const WRITERS_WAIT_MS = 30_000

type PageRow = {
  locked: boolean
  epoch: string
  head: string
  floor: string
  seq: string | null
  note_id: string | null
  json: string | null
}

/** The writers of an account at one moment: the transactions holding its feed lock, and the highest number handed out before. */
type Writers = { upTo: string; holders: string[] }

/** The feed lock of account $1 among pg_locks (an advisory lock on two int4 keys: objsubid 2, the second key as an oid). */
const FEED_LOCK_HELD = `locktype = 'advisory' AND classid = ${FEED_LOCK_CLASS} AND objid = hashtext($1)::oid AND objsubid = 2 AND granted`

/**
 * A page of changes numbered at most $4, read without the lock: the caller has seen every writer that could hold a
 * number up to $4 finish; otherwise as migration 17's feed_page(): live notes' changes from notes, gone ones from
 * note_changes. The head counts only those numbers; it is at least the cursor read from ($2), which an
 * earlier page answered, though the note of that change may have moved above $4 since.
 */
const PAGE_UP_TO = `
  SELECT f.epoch, f.floor,
         greatest(f.floor, CASE WHEN $2::bigint <= $4::bigint THEN $2::bigint ELSE 0 END,
                  (SELECT max(n.change_seq) FROM notes n WHERE n.user_id = $1 AND n.change_seq <= $4::bigint),
                  (SELECT max(g.seq) FROM note_changes g WHERE g.user_id = $1 AND g.seq <= $4::bigint)) AS head,
         c.seq, c.note_id, c.json
  FROM note_feeds f
  LEFT JOIN LATERAL (
    SELECT u.seq, u.note_id, u.json FROM (
      (SELECT n.change_seq AS seq, n.id AS note_id, n.json FROM notes n
       WHERE n.user_id = f.user_id AND n.change_seq > $2::bigint AND n.change_seq <= $4::bigint ORDER BY n.change_seq LIMIT $3::int)
      UNION ALL
      (SELECT g.seq, g.note_id, NULL::text FROM note_changes g
       WHERE g.user_id = f.user_id AND g.seq > $2::bigint AND g.seq <= $4::bigint AND NOT $5::boolean ORDER BY g.seq LIMIT $3::int)
    ) u ORDER BY u.seq LIMIT $3::int
  ) c ON true
  WHERE f.user_id = $1
  ORDER BY c.seq`

const pageOf = (rows: PageRow[]): ChangePage => ({
  epoch: rows[0]!.epoch,
  head: Number(rows[0]!.head),
  floor: Number(rows[0]!.floor),
  changes: rows
    .filter((r) => r.seq !== null)
    .map((r) => ({ seq: Number(r.seq), noteId: r.note_id ?? '', json: r.json })),
})

class PostgresFeed {
  constructor(private readonly query: Query) {}

  /**
   * A writer holds the lock only between numbering its change and committing, so a read usually finds it free within
   * a commit or two; it tries again a little later each time, starting at 1 ms. Writers that follow each other without
   * a gap (an import's batches, many devices of one account) may keep it held for as long as they go on: then the read
   * waits only for the writers it first saw, never for the lock, and serves the changes numbered before them
   * (docs/sync.md, "Why no change is skipped").
   */
  async changesSince(userId: string, since: number | undefined, limit: number): Promise<ChangePage | undefined> {
    const started = Date.now()
    let writers: Writers | undefined
    for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
      const { rows } = await this.query<PageRow>('feed.page', 'SELECT * FROM feed_page($1, $2, $3, $4)', [
        userId,
        since ?? 0,
        limit,
        since === undefined,
      ])
      const first = rows[0]
      if (!first) return undefined
      if (first.locked) return pageOf(rows)
      if (!writers) {
        writers = await this.writersNow(userId)
      } else if (await this.finished(userId, writers)) {
        const page = await this.pageUpTo(userId, since, limit, writers.upTo)
        if (page === undefined || page.floor <= Number(writers.upTo)) return page
        // The sweep raised the floor past the numbers seen settled: look at the writers of now.
        writers = undefined
      }
      if (Date.now() - started > WRITERS_WAIT_MS)
        throw new StoreUnavailableError('the change feed stayed locked by writers of the account')
      await sleep(wait)
    }
  }

  /**
   * The highest number handed out, then the transactions holding the account's feed lock, in that order: a writer
   * numbers its change only while it holds the lock, so every number up to the first is held by one of them or has
   * committed (or rolled back). The sequence hands out numbers one at a time (no cache), so its last value is global.
   */
  private async writersNow(userId: string): Promise<Writers> {
    const { rows: sequence } = await this.query<{ up_to: string }>(
      'feed.numbered',
      'SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END AS up_to FROM note_change',
      [],
    )
    const { rows } = await this.query<{ holder: string }>(
      'feed.writers',
      `SELECT virtualtransaction AS holder FROM pg_locks WHERE ${FEED_LOCK_HELD}`,
      [userId],
    )
    return { upTo: sequence[0]!.up_to, holders: rows.map((r) => r.holder) }
  }

  /** Whether every transaction of `writers` has ended. */
  private async finished(userId: string, writers: Writers): Promise<boolean> {
    if (writers.holders.length === 0) return true
    const { rows } = await this.query<{ n: string }>(
      'feed.writersLeft',
      `SELECT count(*) AS n FROM pg_locks WHERE ${FEED_LOCK_HELD} AND virtualtransaction = ANY($2)`,
      [userId, writers.holders],
    )
    return Number(rows[0]?.n ?? 0) === 0
  }

  private async pageUpTo(
    userId: string,
    since: number | undefined,
    limit: number,
    upTo: string,
  ): Promise<ChangePage | undefined> {
    const { rows } = await this.query<PageRow>('feed.pageUpTo', PAGE_UP_TO, [
      userId,
      since ?? 0,
      limit,
      upTo,
      since === undefined,
    ])
    return rows[0] ? pageOf(rows) : undefined
  }
}

export function postgresFeed(query: Query): FeedStore {
  const feed = new PostgresFeed(query)
  return { changesSince: (userId, since, limit) => feed.changesSince(userId, since, limit) }
}

/** Erases the changes of notes gone before `changedBefore`, raising each account's floor past them: how many. SKIP LOCKED lets sweeps on several instances share the work. */
export function sweepChanges(query: Query, changedBefore: string): Promise<number> {
  return sweepInBatches(async () => {
    const { rows } = await query<{ n: string }>(
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
    return Number(rows[0]?.n ?? 0)
  })
}
