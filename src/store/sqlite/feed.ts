// The change feed section of the SQLite driver (docs/sync.md, "The change feed"; mirrors postgres/feed.ts;
// store/feed.ts). The triggers of migrations 15 and 17 write it: a live note's change is its row's change_seq, a gone
// note's is its row in note_changes. Here it is only read, and swept (trash-history.ts runs the sweep).
import type { Database } from 'better-sqlite3'
import type { ChangePage, FeedChange, FeedStore } from '../feed.js'
import { SWEEP_BATCH, sweepInBatches } from '../trash-history.js'
import type { Writes } from './group-commit.js'

type FeedRow = { epoch: string; head: number; floor: number }
type PageParams = { userId: string; after: number; limit: number }
type ChangeRow = { seq: number; note_id: string; json: string | null }

const changeOf = (row: ChangeRow): FeedChange => ({ seq: row.seq, noteId: row.note_id, json: row.json })

export function sqliteFeed(db: Database): FeedStore {
  // The head is the account's last change: the highest number of a live note or a gone one, or the floor.
  const feed = db.prepare<[{ userId: string }], FeedRow>(
    `SELECT epoch, floor, max(floor, coalesce((SELECT max(change_seq) FROM notes WHERE user_id = @userId), 0),
                            coalesce((SELECT max(seq) FROM note_changes WHERE user_id = @userId), 0)) AS head
     FROM note_feeds WHERE user_id = @userId`,
  )
  const live =
    'SELECT change_seq AS seq, id AS note_id, json FROM notes WHERE user_id = @userId AND change_seq > @after ORDER BY change_seq LIMIT @limit'
  const after = db.prepare<[PageParams], ChangeRow>(
    `SELECT * FROM (${live}) UNION ALL
     SELECT * FROM (SELECT seq, note_id, NULL AS json FROM note_changes WHERE user_id = @userId AND seq > @after ORDER BY seq LIMIT @limit)
     ORDER BY seq LIMIT @limit`,
  )
  const liveAfter = db.prepare<[PageParams], ChangeRow>(live)
  // One read transaction: the feed's head and its changes in one snapshot, whatever other processes write.
  const snapshot = <T>(read: () => T) => db.transaction(read).deferred()
  return {
    changesSince: async (userId, since, limit) =>
      snapshot(() => {
        const state = feed.get({ userId })
        if (!state) return undefined
        const rows =
          since === undefined ? liveAfter.all({ userId, after: 0, limit }) : after.all({ userId, after: since, limit })
        return { ...state, changes: rows.map(changeOf) } satisfies ChangePage
      }),
  }
}

/** Erases the changes of notes gone before `changedBefore`, raising each account's floor past them: how many. */
export type ChangesSweep = (write: Writes['write'], changedBefore: string) => Promise<number>

export function changesSweep(db: Database): ChangesSweep {
  const sweepGone = db.prepare<[string], { user_id: string; seq: number }>(
    `DELETE FROM note_changes WHERE (user_id, note_id) IN (
       SELECT user_id, note_id FROM note_changes WHERE changed_on < ? LIMIT ${SWEEP_BATCH})
     RETURNING user_id, seq`,
  )
  const raiseFloor = db.prepare<[number, string]>('UPDATE note_feeds SET floor = max(floor, ?) WHERE user_id = ?')
  return (write, changedBefore) =>
    sweepInBatches(() =>
      write(() => {
        const gone = sweepGone.all(changedBefore)
        const floors = new Map<string, number>()
        for (const { user_id, seq } of gone) floors.set(user_id, Math.max(seq, floors.get(user_id) ?? 0))
        for (const [userId, floor] of floors) raiseFloor.run(floor, userId)
        return gone.length
      }),
    )
}
