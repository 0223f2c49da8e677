// The sessions section of the PostgreSQL driver (mirrors sqlite/sessions.ts; store/sessions.ts); migration 8's table.
import { SESSION_LIST_ORDER as LIST_ORDER } from '../list-order.js'
import type pg from 'pg'
import type { SessionStore } from '../sessions.js'
import { SESSION_COLUMNS, type SessionRow, type SessionWithUserRow } from '../row-shapes.js'
import { decodeText, encodeText, sessionFromRow, userFromRow } from './rows.js'
import { type Query, unlessAccountGone } from './query.js'
import { lockAccount } from './accounts.js'

export function postgresSessions(query: Query, pool: pg.Pool): SessionStore {
  return {
    /** The session and its account, by primary keys. */
    async findSession(sessionId) {
      const { rows } = await query<SessionWithUserRow>(
        'sessions.withUser',
        `SELECT u.*, s.id AS s_id, s.created_on AS s_created_on, s.last_used_on AS s_last_used_on, s.client AS s_client
         FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = $1`,
        [sessionId],
      )
      const row = rows[0]
      if (!row) return undefined
      const session = {
        _id: row.s_id,
        userId: row.id,
        createdOn: row.s_created_on,
        lastUsedOn: row.s_last_used_on,
        client: decodeText(row.s_client),
      }
      return { session, user: userFromRow(row) }
    },

    // One statement locks the account's row (the pruning ends sessions: accounts.ts lockAccount), deletes
    // the sessions `prune` pushes out and inserts the new one. The deletion reads the snapshot before
    // the insert, so it keeps keepMost - 1. Nothing is inserted when the account is gone.
    async createSession(session, prune) {
      const insert = query(
        'sessions.insert',
        `WITH account AS (SELECT id FROM users WHERE id = $2 FOR NO KEY UPDATE), pruned AS (
           DELETE FROM sessions WHERE user_id = (SELECT id FROM account) AND (created_on < $6
             OR id NOT IN (SELECT id FROM sessions WHERE user_id = $2 AND created_on >= $6 ${LIST_ORDER} LIMIT $7))
         )
         INSERT INTO sessions (${SESSION_COLUMNS}) SELECT $1, id, $3, $4, $5 FROM account`,
        [
          session._id,
          session.userId,
          session.createdOn,
          session.lastUsedOn,
          encodeText(session.client),
          prune.createdBefore,
          Math.max(0, prune.keepMost - 1),
        ],
      )
      return unlessAccountGone(insert.then(({ rowCount }) => rowCount === 1))
    },

    async touchSession(sessionId, lastUsedOn, staleBefore) {
      await query('sessions.touch', 'UPDATE sessions SET last_used_on = $2 WHERE id = $1 AND last_used_on < $3', [
        sessionId,
        lastUsedOn,
        staleBefore,
      ])
    },

    async listSessions(userId, createdSince) {
      const { rows } = await query<SessionRow>(
        'sessions.ofUser',
        `SELECT ${SESSION_COLUMNS} FROM sessions WHERE user_id = $1 AND created_on >= $2 ${LIST_ORDER}`,
        [userId, createdSince],
      )
      return rows.map(sessionFromRow)
    },

    async deleteSession(userId, sessionId, actor) {
      const remove = async (query: Query) =>
        (await query('sessions.delete', 'DELETE FROM sessions WHERE user_id = $1 AND id = $2', [userId, sessionId]))
          .rowCount === 1
      return actor ? lockAccount(pool, userId, actor, 'NO KEY UPDATE', false, remove) : remove(query)
    },
  }
}
