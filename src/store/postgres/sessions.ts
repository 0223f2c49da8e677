// Session queries of the PostgreSQL driver (mirrors sqlite/sessions.ts); migration 9's table.
import { SESSION_LIST_ORDER as LIST_ORDER } from '../list-order.js'
import type { SessionOfAccount, SessionPruning, SessionRecord } from '../types.js'
import { SESSION_COLUMNS, type SessionRow, type UserRow, decodeText, encodeText, sessionFromRow, userFromRow } from './rows.js'
import type { Query } from './query.js'

/** A session's columns under s_ names beside its account's columns (find). */
type SessionWithUserRow = UserRow & { s_id: string; s_created_on: string; s_last_used_on: string; s_client: string }

export class PostgresSessions {
  constructor(private readonly query: Query) {}

  /** The session and its account: one lookup by the sessions primary key, joined on the users primary key. */
  async find(sessionId: string): Promise<SessionOfAccount | undefined> {
    const { rows } = await this.query<SessionWithUserRow>(
      'sessions.withUser',
      `SELECT u.*, s.id AS s_id, s.created_on AS s_created_on, s.last_used_on AS s_last_used_on, s.client AS s_client
       FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = $1`,
      [sessionId],
    )
    const row = rows[0]
    if (!row) return undefined
    const session = { _id: row.s_id, userId: row.id, createdOn: row.s_created_on, lastUsedOn: row.s_last_used_on, client: decodeText(row.s_client) }
    return { session, user: userFromRow(row) }
  }

  /**
   * One statement: the sessions `prune` pushes out are deleted and the new one inserted, in one
   * transaction. The deletion reads the snapshot before the insert, so it keeps keepMost - 1.
   */
  async create(session: SessionRecord, prune: SessionPruning): Promise<boolean> {
    try {
      await this.query(
        'sessions.insert',
        `WITH pruned AS (
           DELETE FROM sessions WHERE user_id = $2 AND (created_on < $6
             OR id NOT IN (SELECT id FROM sessions WHERE user_id = $2 AND created_on >= $6 ${LIST_ORDER} LIMIT $7))
         )
         INSERT INTO sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5)`,
        [session._id, session.userId, session.createdOn, session.lastUsedOn, encodeText(session.client), prune.createdBefore, Math.max(0, prune.keepMost - 1)],
      )
      return true
    } catch (err) {
      // foreign_key_violation: the account does not exist (any more).
      if ((err as { code?: unknown }).code === '23503') return false
      throw err
    }
  }

  async touchIfStale(sessionId: string, lastUsedOn: string, staleBefore: string): Promise<void> {
    await this.query('sessions.touch', 'UPDATE sessions SET last_used_on = $2 WHERE id = $1 AND last_used_on < $3', [sessionId, lastUsedOn, staleBefore])
  }

  async list(userId: string, createdSince: string): Promise<SessionRecord[]> {
    const { rows } = await this.query<SessionRow>(
      'sessions.ofUser',
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE user_id = $1 AND created_on >= $2 ${LIST_ORDER}`,
      [userId, createdSince],
    )
    return rows.map(sessionFromRow)
  }

  async delete(userId: string, sessionId: string): Promise<boolean> {
    const result = await this.query('sessions.delete', 'DELETE FROM sessions WHERE user_id = $1 AND id = $2', [userId, sessionId])
    return result.rowCount === 1
  }
}
