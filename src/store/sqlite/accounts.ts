// The accounts section of the SQLite driver (mirrors postgres/accounts.ts; store/accounts.ts).
import type { Database } from 'better-sqlite3'
import {
  type AccountChange,
  type AccountStore,
  type Actor,
  type Revocation,
  type SessionRecord,
  type UserRecord,
  admitsTokenIssuedAt,
} from '../accounts.js'
import { PasswordReplacedError, SessionEndedError } from '../errors.js'
import type { Writes } from './group-commit.js'
import type { UserRow } from '../row-shapes.js'
import { INSERT_SESSION, INSERT_USER, userFromRow } from './rows.js'

/** Throws SessionEndedError unless the actor is still admitted; first in a write transaction, so nothing ends the session before the commit. */
export type ActorCheck = (userId: string, actor: Actor | undefined) => void

export function actorCheck(db: Database): ActorCheck {
  const session = db.prepare<[string, string]>('SELECT 1 FROM sessions WHERE id = ? AND user_id = ?').pluck()
  const account = db.prepare<[string], { tokens_not_before: string | null }>(
    'SELECT tokens_not_before FROM users WHERE id = ?',
  )
  const admitted = (userId: string, issuedAt: string) => {
    const row = account.get(userId)
    return row !== undefined && admitsTokenIssuedAt(row.tokens_not_before, issuedAt)
  }
  return (userId, actor) => {
    if (!actor) return
    const alive =
      actor.sessionId === undefined
        ? admitted(userId, actor.issuedAt)
        : session.get(actor.sessionId, userId) !== undefined
    if (!alive) throw new SessionEndedError()
  }
}

export function sqliteAccounts(db: Database, { write, adding }: Writes, assertAdmitted: ActorCheck): AccountStore {
  // ON CONFLICT DO NOTHING: the unique index decides between concurrent registrations.
  const insert = db.prepare(`${INSERT_USER} ON CONFLICT (email_key) DO NOTHING`)
  const insertSession = db.prepare(INSERT_SESSION)
  const byEmailKey = db.prepare<[string], UserRow>('SELECT * FROM users WHERE email_key = ?')
  const byId = db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?')
  // coalesce keeps a column whose parameter is NULL; SQLite's max() of two texts is the later
  // ISO time, but NULL if either is NULL, hence the coalesce around the stored one. @replacing:
  // the hash the change replaces, else no row is changed (AccountChange.replacing).
  const change = db.prepare<[Record<string, unknown>], UserRow>(
    `UPDATE users SET
       full_name = coalesce(@fullName, full_name),
       password_hash = coalesce(@passwordHash, password_hash),
       tokens_not_before = CASE WHEN @notBefore IS NULL THEN tokens_not_before
                                ELSE max(coalesce(tokens_not_before, ''), @notBefore) END
     WHERE id = @userId AND (@replacing IS NULL OR password_hash = @replacing)
     RETURNING *`,
  )
  // `id IS NOT NULL` is true of every row: with no session to keep, all end.
  const endSessions = db.prepare('DELETE FROM sessions WHERE user_id = ? AND id IS NOT ?')
  // notes.user_id has no ON DELETE CASCADE (a note must never lose its owner by accident), so
  // the notes go first; sessions and account_usage follow the account by cascade.
  const deleteNotes = db.prepare('DELETE FROM notes WHERE user_id = ?')
  const deleteUser = db.prepare('DELETE FROM users WHERE id = ?')
  // Each transaction below runs inside the group-commit writer's, as a savepoint.
  const create = db.transaction((user: UserRecord, session?: SessionRecord) => {
    if (insert.run(user).changes !== 1) return false
    if (session) insertSession.run({ ...session })
    return true
  })
  const update = db.transaction((userId: string, fields: AccountChange, revocation?: Revocation, actor?: Actor) => {
    assertAdmitted(userId, actor)
    const row = change.get({
      userId,
      fullName: fields.fullName ?? null,
      passwordHash: fields.passwordHash ?? null,
      notBefore: revocation?.notBefore ?? null,
      replacing: fields.replacing ?? null,
    })
    if (!row && fields.replacing !== undefined && byId.get(userId)) throw new PasswordReplacedError()
    if (row && revocation?.endSessions) endSessions.run(userId, revocation.keep ?? null)
    return row && userFromRow(row)
  })
  const remove = db.transaction((userId: string, actor?: Actor) => {
    assertAdmitted(userId, actor)
    deleteNotes.run(userId)
    return deleteUser.run(userId).changes === 1
  })
  const user = (row: UserRow | undefined) => row && userFromRow(row)
  return {
    createUser: (newUser, session) => adding(() => create(newUser, session)),
    findUserByEmailKey: async (key) => user(byEmailKey.get(key)),
    findUserById: async (id) => user(byId.get(id)),
    updateUser: (userId, fields, revocation, actor) => write(() => update(userId, fields, revocation, actor)),
    deleteUser: (userId, actor) => write(() => remove(userId, actor)),
  }
}
