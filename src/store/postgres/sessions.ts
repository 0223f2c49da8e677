// Session queries of the PostgreSQL driver (mirrors sqlite/sessions.ts); migration 9's table.
// The authenticate hook's lookup is session-reader.ts. Nothing is kept in memory: every lookup
// asks the database, so a session ended through any instance is seen by all of them at their
// next request.
import type { SessionPruning, SessionRecord } from '../types.js'
import { SESSION_COLUMNS, type SessionRow, encodeText, sessionFromRow } from './rows.js'
import type { Query } from './query.js'

const LIST_ORDER = 'ORDER BY last_used_on DESC, created_on DESC, id DESC'

export class PostgresSessions {
  constructor(private readonly query: Query) {}

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
