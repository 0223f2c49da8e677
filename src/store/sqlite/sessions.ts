// Session queries of the SQLite driver (mirrors postgres/sessions.ts); migration 8's table.
import type { Database, Statement, Transaction } from 'better-sqlite3'
import { SESSION_LIST_ORDER as LIST_ORDER } from '../list-order.js'
import type { Actor, SessionOfAccount, SessionPruning, SessionRecord } from '../types.js'
import { SESSION_COLUMNS, type SessionRow, type UserRow, sessionFromRow, userFromRow } from './rows.js'
import type { ActorCheck } from './users.js'

/** A session's columns under s_ names beside its account's columns (findSession). */
type SessionWithUserRow = UserRow & { s_id: string; s_created_on: string; s_last_used_on: string; s_client: string }

export class SqliteSessions {
  private readonly insert: Statement<[Record<string, unknown>]>
  private readonly withUser: Statement<[string], SessionWithUserRow>
  private readonly touch: Statement<[string, string, string]>
  private readonly ofUser: Statement<[string, string], SessionRow>
  private readonly remove: Statement<[string, string]>
  /** Runs inside the caller's write transaction, as a savepoint. */
  readonly create: Transaction<(session: SessionRecord, prune: SessionPruning) => boolean>

  constructor(
    db: Database,
    private readonly assertAdmitted: ActorCheck,
  ) {
    this.insert = db.prepare(
      `INSERT INTO sessions (${SESSION_COLUMNS}) VALUES (@_id, @userId, @createdOn, @lastUsedOn, @client)`,
    )
    // One primary-key lookup and one join on the account's primary key.
    this.withUser = db.prepare(
      `SELECT u.*, s.id AS s_id, s.created_on AS s_created_on, s.last_used_on AS s_last_used_on, s.client AS s_client
       FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = ?`,
    )
    this.touch = db.prepare('UPDATE sessions SET last_used_on = ? WHERE id = ? AND last_used_on < ?')
    this.ofUser = db.prepare(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE user_id = ? AND created_on >= ? ${LIST_ORDER}`)
    this.remove = db.prepare('DELETE FROM sessions WHERE user_id = ? AND id = ?')
    // Made room for first: the new session (used now) is then among the most recently used.
    const pruned = db.prepare(
      `DELETE FROM sessions WHERE user_id = @userId AND (created_on < @createdBefore
         OR id NOT IN (SELECT id FROM sessions WHERE user_id = @userId AND created_on >= @createdBefore ${LIST_ORDER} LIMIT @kept))`,
    )
    this.create = db.transaction((session: SessionRecord, prune: SessionPruning) => {
      pruned.run({ userId: session.userId, createdBefore: prune.createdBefore, kept: Math.max(0, prune.keepMost - 1) })
      try {
        this.insert.run({ ...session })
        return true
      } catch (err) {
        if ((err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return false
        throw err
      }
    })
  }

  /** Inserts a session (in the transaction that creates its account). */
  add(session: SessionRecord): void {
    this.insert.run({ ...session })
  }

  find(sessionId: string): SessionOfAccount | undefined {
    const row = this.withUser.get(sessionId)
    if (!row) return undefined
    const session = { _id: row.s_id, userId: row.id, createdOn: row.s_created_on, lastUsedOn: row.s_last_used_on, client: row.s_client }
    return { session, user: userFromRow(row) }
  }

  touchIfStale(sessionId: string, lastUsedOn: string, staleBefore: string): void {
    this.touch.run(lastUsedOn, sessionId, staleBefore)
  }

  list(userId: string, createdSince: string): SessionRecord[] {
    return this.ofUser.all(userId, createdSince).map(sessionFromRow)
  }

  /** Runs inside the caller's write transaction, so the actor's check and the delete are one. */
  delete(userId: string, sessionId: string, actor?: Actor): boolean {
    this.assertAdmitted(userId, actor)
    return this.remove.run(userId, sessionId).changes === 1
  }
}
