// User queries of the PostgreSQL driver (mirrors sqlite/users.ts). Named queries are prepared
// once per connection.
import type pg from 'pg'
import type { AccountChange, Revocation, SessionRecord, UserRecord } from '../types.js'
import { type UserRow, encodeText, userFromRow } from './rows.js'
import { type Query, inTransaction } from './query.js'

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
   * and its sessions end only when the row was there to update.
   */
  async update(userId: string, change: AccountChange, revocation?: Revocation): Promise<UserRecord | undefined> {
    const { rows } = await this.query<UserRow>(
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
      [
        userId,
        change.fullName === undefined ? null : encodeText(change.fullName),
        change.passwordHash ?? null,
        revocation?.notBefore ?? null,
        revocation?.endSessions ?? false,
        revocation?.keep ?? null,
      ],
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
  delete(userId: string): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const locked = await client.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId])
      if (locked.rowCount !== 1) return false
      await client.query('DELETE FROM notes WHERE user_id = $1', [userId])
      await client.query('DELETE FROM users WHERE id = $1', [userId])
      return true
    })
  }
}
