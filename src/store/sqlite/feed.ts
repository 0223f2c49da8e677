// The change feed's queries (docs/sync.md, "The change feed"; mirrors postgres/feed.ts). Migration 15's triggers
// write it; here it is only read, and swept.
import type { Database, Statement } from 'better-sqlite3'
import type { ChangePage, FeedChange } from '../types.js'
import type { Writes } from './index.js'

/** Gone notes' changes erased per write transaction of the sweep. */
const SWEEP_BATCH = 500

type FeedRow = { epoch: string; head: number; floor: number }
type ChangeRow = { seq: number; note_id: string; json: string | null }

const changeOf = (row: ChangeRow): FeedChange => ({ seq: row.seq, noteId: row.note_id, json: row.json })

export class SqliteFeed {
  private readonly feed: Statement<[string], FeedRow>
  private readonly after: Statement<[string, number, number], ChangeRow>
  private readonly liveAfter: Statement<[string, number, number], ChangeRow>
  private readonly sweepGone: Statement<[string], { user_id: string; seq: number }>
  private readonly raiseFloor: Statement<[number, string]>
  /** One read transaction: the feed's head and its changes in one snapshot, whatever other processes write. */
  private readonly snapshot: <T>(read: () => T) => T

  constructor(db: Database) {
    this.feed = db.prepare('SELECT epoch, head, floor FROM note_feeds WHERE user_id = ?')
    const page = (join: string) =>
      db.prepare<[string, number, number], ChangeRow>(
        `SELECT c.seq, c.note_id, n.json FROM note_changes c ${join} notes n ON n.user_id = c.user_id AND n.id = c.note_id
         WHERE c.user_id = ? AND c.seq > ? ORDER BY c.seq LIMIT ?`,
      )
    this.after = page('LEFT JOIN')
    this.liveAfter = page('JOIN')
    this.sweepGone = db.prepare(
      `DELETE FROM note_changes WHERE (user_id, note_id) IN (
         SELECT user_id, note_id FROM note_changes WHERE live = 0 AND changed_on < ? LIMIT ${SWEEP_BATCH})
       RETURNING user_id, seq`,
    )
    this.raiseFloor = db.prepare('UPDATE note_feeds SET floor = max(floor, ?) WHERE user_id = ?')
    this.snapshot = <T>(read: () => T) => db.transaction(read).deferred()
  }

  changesSince(userId: string, since: number | undefined, limit: number): ChangePage | undefined {
    return this.snapshot(() => {
      const feed = this.feed.get(userId)
      if (!feed) return undefined
      const rows = since === undefined ? this.liveAfter.all(userId, 0, limit) : this.after.all(userId, since, limit)
      return { ...feed, changes: rows.map(changeOf) }
    })
  }

  /** Erases the changes of notes gone before `changedBefore`, raising each account's floor past them: how many. */
  async sweep(writes: Writes, changedBefore: string): Promise<number> {
    let total = 0
    for (;;) {
      const erased = await writes.write(() => {
        const gone = this.sweepGone.all(changedBefore)
        const floors = new Map<string, number>()
        for (const { user_id, seq } of gone) floors.set(user_id, Math.max(seq, floors.get(user_id) ?? 0))
        for (const [userId, floor] of floors) this.raiseFloor.run(floor, userId)
        return gone.length
      })
      total += erased
      if (erased < SWEEP_BATCH) return total
    }
  }
}
