// User queries of the SQLite driver (mirrors postgres/users.ts).
import type { Database, Statement, Transaction } from 'better-sqlite3'
import { type AccountChange, type Actor, type Revocation, SessionEndedError, type UserRecord } from '../types.js'
import { type UserRow, userFromRow } from './rows.js'

/**
 * Throws SessionEndedError unless the actor is still admitted (types.ts Actor). Called first in a
 * write transaction: SQLite has one writer at a time, so nothing can end the session between
 * this check and the write's commit.
 */
export type ActorCheck = (userId: string, actor: Actor | undefined) => void

export function actorCheck(db: Database): ActorCheck {
  const session = db.prepare<[string, string]>('SELECT 1 FROM sessions WHERE id = ? AND user_id = ?').pluck()
  const admitted = db
    .prepare<[string, string]>('SELECT 1 FROM users WHERE id = ? AND (tokens_not_before IS NULL OR tokens_not_before <= ?)')
    .pluck()
  return (userId, actor) => {
    if (!actor) return
    const alive = actor.sessionId === undefined ? admitted.get(userId, actor.issuedAt) : session.get(actor.sessionId, userId)
    if (alive === undefined) throw new SessionEndedError()
  }
}

export class SqliteUsers {
  private readonly insert: Statement
  private readonly byEmailKey: Statement<[string], UserRow>
  private readonly byId: Statement<[string], UserRow>
  /** Both run inside the caller's write transaction; better-sqlite3 nests them as savepoints. */
  readonly update: Transaction<(userId: string, change: AccountChange, revocation?: Revocation, actor?: Actor) => UserRecord | undefined>
  readonly remove: Transaction<(userId: string, actor?: Actor) => boolean>

  constructor(db: Database, assertAdmitted: ActorCheck) {
    // ON CONFLICT DO NOTHING: the unique index decides between concurrent registrations.
    this.insert = db.prepare(
      `INSERT INTO users (id, full_name, email, email_key, password_hash, created_on)
       VALUES (@_id, @fullName, @email, @emailKey, @passwordHash, @createdOn)
       ON CONFLICT (email_key) DO NOTHING`,
    )
    this.byEmailKey = db.prepare('SELECT * FROM users WHERE email_key = ?')
    this.byId = db.prepare('SELECT * FROM users WHERE id = ?')
    // coalesce keeps a column whose parameter is NULL; SQLite's max() of two texts is the later
    // ISO time, but NULL if either is NULL, hence the coalesce around the stored one.
    const change = db.prepare<[Record<string, unknown>], UserRow>(
      `UPDATE users SET
         full_name = coalesce(@fullName, full_name),
         password_hash = coalesce(@passwordHash, password_hash),
         tokens_not_before = CASE WHEN @notBefore IS NULL THEN tokens_not_before
                                  ELSE max(coalesce(tokens_not_before, ''), @notBefore) END
       WHERE id = @userId
       RETURNING *`,
    )
    // `id IS NOT NULL` is true of every row: with no session to keep, all end.
    const endSessions = db.prepare('DELETE FROM sessions WHERE user_id = ? AND id IS NOT ?')
    this.update = db.transaction((userId: string, fields: AccountChange, revocation?: Revocation, actor?: Actor) => {
      assertAdmitted(userId, actor)
      const row = change.get({
        userId,
        fullName: fields.fullName ?? null,
        passwordHash: fields.passwordHash ?? null,
        notBefore: revocation?.notBefore ?? null,
      })
      if (row && revocation?.endSessions) endSessions.run(userId, revocation.keep ?? null)
      return row && userFromRow(row)
    })
    // notes.user_id has no ON DELETE CASCADE (a note must never lose its owner by accident), so
    // the notes go first; sessions and account_usage follow the account by cascade.
    const deleteNotes = db.prepare('DELETE FROM notes WHERE user_id = ?')
    const deleteUser = db.prepare('DELETE FROM users WHERE id = ?')
    this.remove = db.transaction((userId: string, actor?: Actor) => {
      assertAdmitted(userId, actor)
      deleteNotes.run(userId)
      return deleteUser.run(userId).changes === 1
    })
  }

  create(user: UserRecord): boolean {
    return this.insert.run(user).changes === 1
  }

  findByEmailKey(emailKey: string): UserRecord | undefined {
    const row = this.byEmailKey.get(emailKey)
    return row && userFromRow(row)
  }

  findById(id: string): UserRecord | undefined {
    const row = this.byId.get(id)
    return row && userFromRow(row)
  }
}
