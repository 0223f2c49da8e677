// User queries of the PostgreSQL driver (mirrors sqlite/users.ts). Named queries are prepared
// once per connection.
import type pg from 'pg'
import { type AccountChange, type Actor, type Revocation, SessionEndedError, type SessionRecord, type UserRecord } from '../types.js'
import { type UserRow, encodeText, userFromRow } from './rows.js'
import { type Query, inTransaction } from './query.js'

/**
 * Locks the account's row for the transaction, then checks the actor (types.ts Actor): false when
 * no account has this id and there is no actor; SessionEndedError when the actor is no longer
 * admitted (its account gone included). Every write
 * that ends sessions or moves "not before" takes this row lock before it does (update, delete,
 * deleteSession, createSession's pruning), so once the check has passed nothing ends the actor's
 * session before this transaction commits. The check is a statement of its own after the lock:
 * in READ COMMITTED it reads a new snapshot, which holds every revocation committed while the
 * lock was awaited (a single statement would judge by the snapshot it started with).
 */
export async function lockAccount(client: pg.PoolClient, userId: string, actor: Actor | undefined, lock: 'UPDATE' | 'NO KEY UPDATE'): Promise<boolean> {
  const locked = await client.query<{ tokens_not_before: string | null }>(`SELECT tokens_not_before FROM users WHERE id = $1 FOR ${lock}`, [userId])
  const row = locked.rows[0]
  // An actor's account that is gone took the actor's session with it.
  if (!row && actor) throw new SessionEndedError()
  if (!row) return false
  if (!actor) return true
  if (actor.sessionId === undefined) {
    if (row.tokens_not_before !== null && row.tokens_not_before > actor.issuedAt) throw new SessionEndedError()
    return true
  }
  const session = await client.query('SELECT 1 FROM sessions WHERE id = $1 AND user_id = $2', [actor.sessionId, userId])
  if (session.rowCount !== 1) throw new SessionEndedError()
  return true
}

export class PostgresUsers {
  constructor(
    private readonly query: Query,
    private readonly pool: pg.Pool,
  ) {}

  /**
   * ON CONFLICT DO NOTHING: the unique index decides between concurrent registrations. With a
   * session, one statement inserts both (the session only when the account was inserted), so
   * they commit together; the session's foreign key is checked at the end of the statement,
   * when the account's row is there.
   */
  async create(user: UserRecord, session?: SessionRecord): Promise<boolean> {
    const values = [user._id, encodeText(user.fullName), encodeText(user.email), encodeText(user.emailKey), user.passwordHash, user.createdOn]
    const insertUser = `INSERT INTO users (id, full_name, email, email_key, password_hash, created_on)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (email_key) DO NOTHING`
    if (!session) return (await this.query('users.insert', insertUser, values)).rowCount === 1
    const result = await this.query(
      'users.insertWithSession',
      `WITH inserted AS (${insertUser} RETURNING id)
       INSERT INTO sessions (id, user_id, created_on, last_used_on, client)
       SELECT $7, id, $8, $9, $10 FROM inserted`,
      [...values, session._id, session.createdOn, session.lastUsedOn, encodeText(session.client)],
    )
    return result.rowCount === 1
  }

  async findByEmailKey(emailKey: string): Promise<UserRecord | undefined> {
    const { rows } = await this.query<UserRow>('users.byEmailKey', 'SELECT * FROM users WHERE email_key = $1', [encodeText(emailKey)])
    return rows[0] && userFromRow(rows[0])
  }

  async findById(id: string): Promise<UserRecord | undefined> {
    const { rows } = await this.query<UserRow>('users.byId', 'SELECT * FROM users WHERE id = $1', [id])
    return rows[0] && userFromRow(rows[0])
  }

  /**
   * One statement, so one transaction: the account's row is updated (COALESCE keeps a column
   * whose parameter is NULL; GREATEST ignores a NULL, so a first "not before" is simply set),
   * and its sessions end only when the row was there to update. With an actor, the statement
   * runs in a transaction after lockAccount has admitted it.
   */
  async update(userId: string, change: AccountChange, revocation?: Revocation, actor?: Actor): Promise<UserRecord | undefined> {
    const values = [
      userId,
      change.fullName === undefined ? null : encodeText(change.fullName),
      change.passwordHash ?? null,
      revocation?.notBefore ?? null,
      revocation?.endSessions ?? false,
      revocation?.keep ?? null,
    ]
    if (!actor) return this.updateStatement(values, this.query)
    return inTransaction(this.pool, async (client) => {
      if (!(await lockAccount(client, userId, actor, 'NO KEY UPDATE'))) return undefined
      return this.updateStatement(values, (name, text, v) => client.query({ name, text, values: v }))
    })
  }

  private async updateStatement(values: unknown[], query: Query): Promise<UserRecord | undefined> {
    const { rows } = await query<UserRow>(
      'users.update',
      `WITH changed AS (
         UPDATE users SET
           full_name = COALESCE($2, full_name),
           password_hash = COALESCE($3, password_hash),
           tokens_not_before = CASE WHEN $4::text IS NULL THEN tokens_not_before ELSE GREATEST(tokens_not_before, $4::text) END
         WHERE id = $1
         RETURNING *
       ), ended AS (
         DELETE FROM sessions WHERE $5::boolean AND user_id = $1 AND id IS DISTINCT FROM $6::text AND EXISTS (SELECT 1 FROM changed)
       )
       SELECT * FROM changed`,
      values,
    )
    return rows[0] && userFromRow(rows[0])
  }

  /**
   * The account's row is locked first: a note or session inserted meanwhile checks its foreign
   * key against that row, so it waits, and then fails (the account is gone) instead of making
   * the account's deletion fail. notes.user_id has no ON DELETE CASCADE (a note must never lose
   * its owner by accident), so the notes go before the account; its sessions, note versions and
   * usage rows follow it by cascade.
   */
  delete(userId: string, actor?: Actor): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      if (!(await lockAccount(client, userId, actor, 'UPDATE'))) return false
      await client.query('DELETE FROM notes WHERE user_id = $1', [userId])
      await client.query('DELETE FROM users WHERE id = $1', [userId])
      return true
    })
  }
}
