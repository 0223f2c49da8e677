// The sessions section of the SQLite driver (mirrors postgres/sessions.ts; store/sessions.ts); migration 8's table.
import type { Database } from 'better-sqlite3'
import type { SessionRecord } from '../accounts.js'
import { SESSION_LIST_ORDER as LIST_ORDER } from '../list-order.js'
import type { SessionPruning, SessionStore } from '../sessions.js'
import type { Writes } from './group-commit.js'
import { SESSION_COLUMNS, type SessionRow, type SessionWithUserRow } from '../row-shapes.js'
import { INSERT_SESSION, sessionFromRow, unlessAccountGone, userFromRow } from './rows.js'
import type { ActorCheck } from './accounts.js'

export function sqliteSessions(db: Database, { write }: Writes, assertAdmitted: ActorCheck): SessionStore {
  const insert = db.prepare(INSERT_SESSION)
  const withUser = db.prepare<[string], SessionWithUserRow>(
    `SELECT u.*, s.id AS s_id, s.created_on AS s_created_on, s.last_used_on AS s_last_used_on, s.client AS s_client
     FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = ?`,
  )
  const touch = db.prepare('UPDATE sessions SET last_used_on = ? WHERE id = ? AND last_used_on < ?')
  const ofUser = db.prepare<[string, string], SessionRow>(
    `SELECT ${SESSION_COLUMNS} FROM sessions WHERE user_id = ? AND created_on >= ? ${LIST_ORDER}`,
  )
  const remove = db.prepare('DELETE FROM sessions WHERE user_id = ? AND id = ?')
  // Room is made first: the new session (used now) is then among the most recently used.
  const pruned = db.prepare(
    `DELETE FROM sessions WHERE user_id = @userId AND (created_on < @createdBefore
       OR id NOT IN (SELECT id FROM sessions WHERE user_id = @userId AND created_on >= @createdBefore ${LIST_ORDER} LIMIT @kept))`,
  )
  // A savepoint inside the group-commit writer's transaction.
  const create = db.transaction((session: SessionRecord, prune: SessionPruning) => {
    pruned.run({ userId: session.userId, createdBefore: prune.createdBefore, kept: Math.max(0, prune.keepMost - 1) })
    return unlessAccountGone(() => insert.run({ ...session }).changes === 1)
  })
  return {
    createSession: (session, prune) => write(() => create(session, prune)),
    findSession: async (sessionId) => {
      const row = withUser.get(sessionId)
      if (!row) return undefined
      const session = {
        _id: row.s_id,
        userId: row.id,
        createdOn: row.s_created_on,
        lastUsedOn: row.s_last_used_on,
        client: row.s_client,
      }
      return { session, user: userFromRow(row) }
    },
    touchSession: (sessionId, lastUsedOn, staleBefore) =>
      write(() => void touch.run(lastUsedOn, sessionId, staleBefore)),
    listSessions: async (userId, createdSince) => ofUser.all(userId, createdSince).map(sessionFromRow),
    // In the writer's transaction, so the actor's check and the delete are one.
    deleteSession: (userId, sessionId, actor) =>
      write(() => {
        assertAdmitted(userId, actor)
        return remove.run(userId, sessionId).changes === 1
      }),
  }
}
