// The accounts section of the PostgreSQL driver (mirrors sqlite/accounts.ts; store/accounts.ts).
import type pg from 'pg'
import { type AccountStore, type Actor, admitsTokenIssuedAt } from '../accounts.js'
import { PasswordReplacedError, SessionEndedError } from '../errors.js'
import type { UserRow } from '../row-shapes.js'
import { INSERT_USER, encodeText, userFromRow, userValues } from './rows.js'
import { type Query, inTransaction } from './query.js'

/**
 * Runs `work` in a transaction once the account's row is locked and the actor admitted (else
 * SessionEndedError); `absent` without the account. Every write that ends sessions or moves "not before"
 * locks first, and the check, a statement of its own, sees every revocation committed meanwhile.
 */
export function lockAccount<T>(
  pool: pg.Pool,
  userId: string,
  actor: Actor | undefined,
  lock: 'UPDATE' | 'NO KEY UPDATE',
  absent: T,
  work: (query: Query) => Promise<T>,
): Promise<T> {
  return inTransaction(pool, async (client) => {
    const locked = await client.query<{ tokens_not_before: string | null }>(
      `SELECT tokens_not_before FROM users WHERE id = $1 FOR ${lock}`,
      [userId],
    )
    const row = locked.rows[0]
    // An actor's account that is gone took the actor's session with it.
    if (!row && actor) throw new SessionEndedError()
    if (!row) return absent
    if (actor?.sessionId !== undefined) {
      const session = await client.query('SELECT 1 FROM sessions WHERE id = $1 AND user_id = $2', [
        actor.sessionId,
        userId,
      ])
      if (session.rowCount !== 1) throw new SessionEndedError()
    } else if (actor && !admitsTokenIssuedAt(row.tokens_not_before, actor.issuedAt)) {
      throw new SessionEndedError()
    }
    return work((name, text, values) => client.query({ name, text, values }))
  })
}

export function postgresAccounts(query: Query, pool: pg.Pool): AccountStore {
  return {
    // The unique index decides between concurrent registrations. With a session, one statement
    // inserts both, so they commit together (the foreign key is checked at the statement's end).
    async createUser(user, session) {
      const values = userValues(user)
      const insertUser = `${INSERT_USER} ON CONFLICT (email_key) DO NOTHING`
      if (!session) return (await query('users.insert', insertUser, values)).rowCount === 1
      const result = await query(
        'users.insertWithSession',
        `WITH inserted AS (${insertUser} RETURNING id)
         INSERT INTO sessions (id, user_id, created_on, last_used_on, client)
         SELECT $7, id, $8, $9, $10 FROM inserted`,
        [...values, session._id, session.createdOn, session.lastUsedOn, encodeText(session.client)],
      )
      return result.rowCount === 1
    },

    async findUserByEmailKey(emailKey) {
      const { rows } = await query<UserRow>('users.byEmailKey', 'SELECT * FROM users WHERE email_key = $1', [
        encodeText(emailKey),
      ])
      return rows[0] && userFromRow(rows[0])
    },

    async findUserById(id) {
      const { rows } = await query<UserRow>('users.byId', 'SELECT * FROM users WHERE id = $1', [id])
      return rows[0] && userFromRow(rows[0])
    },

    // One statement: COALESCE keeps a column whose parameter is NULL, GREATEST ignores a NULL (so a
    // first "not before" is simply set), and sessions end only when the row was there to update.
    // $7, the hash a new one replaces (AccountChange.replacing): with the row locked, no row changed
    // means another hash was stored.
    async updateUser(userId, change, revocation, actor) {
      const fullName = change.fullName === undefined ? null : encodeText(change.fullName)
      const { notBefore = null, endSessions = false, keep = null } = revocation ?? {}
      const replacing = change.replacing ?? null
      const values = [userId, fullName, change.passwordHash ?? null, notBefore, endSessions, keep, replacing]
      const update = async (query: Query) => {
        const { rows } = await query<UserRow>(
          'users.update',
          `WITH changed AS (
           UPDATE users SET
             full_name = COALESCE($2, full_name),
             password_hash = COALESCE($3, password_hash),
             tokens_not_before = CASE WHEN $4::text IS NULL THEN tokens_not_before ELSE GREATEST(tokens_not_before, $4::text) END
           WHERE id = $1 AND ($7::text IS NULL OR password_hash = $7)
           RETURNING *
         ), ended AS (
           DELETE FROM sessions WHERE $5::boolean AND user_id = $1 AND id IS DISTINCT FROM $6::text AND EXISTS (SELECT 1 FROM changed)
         )
         SELECT * FROM changed`,
          values,
        )
        if (!rows[0] && replacing !== null) throw new PasswordReplacedError()
        return rows[0] && userFromRow(rows[0])
      }
      return actor || replacing !== null
        ? lockAccount(pool, userId, actor, 'NO KEY UPDATE', undefined, update)
        : update(query)
    },

    // A note write locks its note's row first and the account's row last (the KEY SHARE of a foreign key, as an
    // edit keeps a revision), so the deletion takes them in that order too, else the two wait for each other: the
    // account's row in a mode those KEY SHARE locks pass (and every revocation waits for), then the account's notes
    // and trash, waiting for the writes under way, then the row FOR UPDATE. From then on a note or session inserted
    // waits on its foreign key, then fails, instead of failing the deletion. notes.user_id has no ON DELETE CASCADE,
    // so that a note never loses its owner by accident; the rest follows the account by cascade. A cycle this order
    // cannot prevent (usage shards shared by two connections) ends in a deadlock error, and the deletion runs again
    // (query.ts, inTransaction).
    deleteUser(userId, actor) {
      return lockAccount(pool, userId, actor, 'NO KEY UPDATE', false, async (query) => {
        await query(
          'users.lockNotes',
          'SELECT count(*) FROM (SELECT 1 FROM notes WHERE user_id = $1 FOR UPDATE) AS locked',
          [userId],
        )
        await query(
          'users.lockTrash',
          'SELECT count(*) FROM (SELECT 1 FROM trashed_notes WHERE user_id = $1 FOR UPDATE) AS locked',
          [userId],
        )
        await query('users.lockToDelete', 'SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId])
        await query('users.deleteNotes', 'DELETE FROM notes WHERE user_id = $1', [userId])
        await query('users.delete', 'DELETE FROM users WHERE id = $1', [userId])
        return true
      })
    },
  }
}
