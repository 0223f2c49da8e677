// User queries of the PostgreSQL driver (mirrors sqlite/users.ts). Named queries are prepared
// once per connection.
import type { UserRecord } from '../types.js'
import { type UserRow, encodeText, userFromRow } from './rows.js'
import type { Query } from './query.js'

export class PostgresUsers {
  constructor(private readonly query: Query) {}

  /** ON CONFLICT DO NOTHING: the unique index decides between concurrent registrations. */
  async create(user: UserRecord): Promise<boolean> {
    const result = await this.query<UserRow>(
      'users.insert',
      `INSERT INTO users (id, full_name, email, email_key, password_hash, created_on)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (email_key) DO NOTHING`,
      [user._id, encodeText(user.fullName), encodeText(user.email), encodeText(user.emailKey), user.passwordHash, user.createdOn],
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
}
