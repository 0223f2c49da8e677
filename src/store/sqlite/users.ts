// User queries of the SQLite driver (mirrors postgres/users.ts).
import type { Database, Statement } from 'better-sqlite3'
import type { UserRecord } from '../types.js'
import { type UserRow, userFromRow } from './rows.js'

export class SqliteUsers {
  private readonly insert: Statement
  private readonly byEmailKey: Statement<[string], UserRow>
  private readonly byId: Statement<[string], UserRow>

  constructor(db: Database) {
    // ON CONFLICT DO NOTHING: the unique index decides between concurrent registrations.
    this.insert = db.prepare(
      `INSERT INTO users (id, full_name, email, email_key, password_hash, created_on)
       VALUES (@_id, @fullName, @email, @emailKey, @passwordHash, @createdOn)
       ON CONFLICT (email_key) DO NOTHING`,
    )
    this.byEmailKey = db.prepare('SELECT * FROM users WHERE email_key = ?')
    this.byId = db.prepare('SELECT * FROM users WHERE id = ?')
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
