// The change feed's queries (docs/sync.md, "The change feed"; mirrors postgres/feed.ts). The triggers of migrations
// 15 and 17 write it: a live note's change is its row's change_seq, a gone note's is its row in note_changes. Here it
// is only read, and swept.
import type { Database, Statement } from 'better-sqlite3'
import type { ChangePage, FeedChange } from '../types.js'
import type { Writes } from './index.js'

/** Gone notes' changes erased per write transaction of the sweep. */
const SWEEP_BATCH = 500

type FeedRow = { epoch: string; head: number; floor: number }
type PageParams = { userId: string; after: number; limit: number }
type ChangeRow = { seq: number; note_id: string; json: string | null }

const changeOf = (row: ChangeRow): FeedChange => ({ seq: row.seq, noteId: row.note_id, json: row.json })

export class SqliteFeed {
  private readonly feed: Statement<[{ userId: string }], FeedRow>
  private readonly after: Statement<[PageParams], ChangeRow>
  private readonly liveAfter: Statement<[PageParams], ChangeRow>
  private readonly sweepGone: Statement<[string], { user_id: string; seq: number }>
  private readonly raiseFloor: Statement<[number, string]>
  /** One read transaction: the feed's head and its changes in one snapshot, whatever other processes write. */
  private readonly snapshot: <T>(read: () => T) => T

  constructor(db: Database) {
    // The head is the account's last change: the highest number of a live note or a gone one, or the floor.
    this.feed = db.prepare(
      `SELECT epoch, floor, max(floor, coalesce((SELECT max(change_seq) FROM notes WHERE user_id = @userId), 0),
                              coalesce((SELECT max(seq) FROM note_changes WHERE user_id = @userId), 0)) AS head
       FROM note_feeds WHERE user_id = @userId`,
    )
    const live = 'SELECT change_seq AS seq, id AS note_id, json FROM notes WHERE user_id = @userId AND change_seq > @after ORDER BY change_seq LIMIT @limit'
    this.after = db.prepare<[PageParams], ChangeRow>(
      `SELECT * FROM (${live}) UNION ALL
       SELECT * FROM (SELECT seq, note_id, NULL AS json FROM note_changes WHERE user_id = @userId AND seq > @after ORDER BY seq LIMIT @limit)
       ORDER BY seq LIMIT @limit`,
    )
    this.liveAfter = db.prepare<[PageParams], ChangeRow>(live)
    this.sweepGone = db.prepare(
      `DELETE FROM note_changes WHERE (user_id, note_id) IN (
         SELECT user_id, note_id FROM note_changes WHERE changed_on < ? LIMIT ${SWEEP_BATCH})
       RETURNING user_id, seq`,
    )
    this.raiseFloor = db.prepare('UPDATE note_feeds SET floor = max(floor, ?) WHERE user_id = ?')
    this.snapshot = <T>(read: () => T) => db.transaction(read).deferred()
  }

  changesSince(userId: string, since: number | undefined, limit: number): ChangePage | undefined {
    return this.snapshot(() => {
      const feed = this.feed.get({ userId })
      if (!feed) return undefined
      const rows = since === undefined ? this.liveAfter.all({ userId, after: 0, limit }) : this.after.all({ userId, after: since, limit })
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
