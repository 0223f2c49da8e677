// Session queries of the PostgreSQL driver (mirrors sqlite/sessions.ts); migration 8's table.
import { SESSION_LIST_ORDER as LIST_ORDER } from '../list-order.js'
import type pg from 'pg'
import type { Actor, SessionOfAccount, SessionPruning, SessionRecord } from '../types.js'
import { SESSION_COLUMNS, type SessionRow, type UserRow, decodeText, encodeText, sessionFromRow, userFromRow } from './rows.js'
import { type Query, inTransaction } from './query.js'
import { lockAccount } from './users.js'

/** A session's columns under s_ names beside its account's columns (find). */
type SessionWithUserRow = UserRow & { s_id: string; s_created_on: string; s_last_used_on: string; s_client: string }

export class PostgresSessions {
  constructor(
    private readonly query: Query,
    private readonly pool: pg.Pool,
  ) {}

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
   * One statement: the account's row is locked (the pruning ends sessions, so it waits for a
   * write that checked its own session: users.ts lockAccount), the sessions `prune` pushes out
   * are deleted and the new one inserted, in one transaction. The deletion reads the snapshot
   * before the insert, so it keeps keepMost - 1. Nothing is inserted when the account is gone.
   */
  async create(session: SessionRecord, prune: SessionPruning): Promise<boolean> {
    try {
      const { rowCount } = await this.query(
        'sessions.insert',
        `WITH account AS (SELECT id FROM users WHERE id = $2 FOR NO KEY UPDATE), pruned AS (
           DELETE FROM sessions WHERE user_id = (SELECT id FROM account) AND (created_on < $6
             OR id NOT IN (SELECT id FROM sessions WHERE user_id = $2 AND created_on >= $6 ${LIST_ORDER} LIMIT $7))
         )
         INSERT INTO sessions (${SESSION_COLUMNS}) SELECT $1, id, $3, $4, $5 FROM account`,
        [session._id, session.userId, session.createdOn, session.lastUsedOn, encodeText(session.client), prune.createdBefore, Math.max(0, prune.keepMost - 1)],
      )
      return rowCount === 1
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

  /** With an actor, in a transaction that first locks the account and checks it (users.ts lockAccount). */
  async delete(userId: string, sessionId: string, actor?: Actor): Promise<boolean> {
    const text = 'DELETE FROM sessions WHERE user_id = $1 AND id = $2'
    if (!actor) return (await this.query('sessions.delete', text, [userId, sessionId])).rowCount === 1
    return inTransaction(this.pool, async (client) => {
      if (!(await lockAccount(client, userId, actor, 'NO KEY UPDATE'))) return false
      return (await client.query({ name: 'sessions.delete', text, values: [userId, sessionId] })).rowCount === 1
    })
  }
}
