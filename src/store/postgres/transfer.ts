// Bulk import and paged export for the PostgreSQL driver (mirrors sqlite/transfer.ts). Each
// batch is one transaction on one pooled connection; the inserts use ON CONFLICT DO NOTHING, so
// a registration racing an import decides the outcome instead of failing the batch.
import type pg from 'pg'
import type { NoteImportOutcome, NoteRecord, UserImportOutcome, UserRecord } from '../types.js'
import { noteDifferences } from '../note-differences.js'
import { type Query, inTransaction } from './query.js'
import { noteColumns } from '../note-columns.js'
import { NOTE_COLUMNS, type NoteRow, type UserRow, encodeText, noteFromRow, noteInsertParams, noteValues, placeholder, userFromRow } from './rows.js'

const OWNER = placeholder(noteColumns, 1, 'userId')

export class PostgresTransfer {
  constructor(
    private readonly pool: pg.Pool,
    private readonly query: Query,
  ) {}

  importUsers(users: UserRecord[]): Promise<UserImportOutcome[]> {
    if (users.length === 0) return Promise.resolve([])
    return inTransaction(this.pool, async (client) => {
      const outcomes: UserImportOutcome[] = []
      for (const u of users) {
        const inserted = await client.query(
          `INSERT INTO users (id, full_name, email, email_key, password_hash, created_on)
           VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING id`,
          [u._id, encodeText(u.fullName), encodeText(u.email), encodeText(u.emailKey), u.passwordHash, u.createdOn],
        )
        if (inserted.rowCount === 1) outcomes.push('inserted')
        else {
          const same = await client.query('SELECT 1 FROM users WHERE id = $1', [u._id])
          outcomes.push(same.rowCount === 1 ? 'exists' : 'duplicate-email')
        }
      }
      return outcomes
    })
  }

  importNotes(notes: NoteRecord[]): Promise<NoteImportOutcome[]> {
    if (notes.length === 0) return Promise.resolve([])
    return inTransaction(this.pool, async (client) => {
      const outcomes: NoteImportOutcome[] = []
      for (const n of notes) {
        const inserted = await client.query(
          `INSERT INTO notes (${NOTE_COLUMNS}) SELECT ${noteInsertParams(1)} WHERE EXISTS (SELECT 1 FROM users WHERE id = ${OWNER})
           ON CONFLICT (id) DO NOTHING RETURNING id`,
          noteValues(n),
        )
        if (inserted.rowCount === 1) outcomes.push('inserted')
        else {
          const { rows } = await client.query<NoteRow>(`SELECT ${NOTE_COLUMNS} FROM notes WHERE id = $1`, [n._id])
          const differs = rows[0] && noteDifferences(noteFromRow(rows[0]), n)
          outcomes.push(differs === undefined ? 'missing-user' : differs.length === 0 ? 'exists' : { differs })
        }
      }
      return outcomes
    })
  }

  /** '' sorts before every id in the "C" collation, so it stands for "from the start". */
  async usersAfter(afterId: string | undefined, limit: number): Promise<UserRecord[]> {
    const { rows } = await this.query<UserRow>('transfer.usersAfter', 'SELECT * FROM users WHERE id > $1 ORDER BY id LIMIT $2', [afterId ?? '', limit])
    return rows.map(userFromRow)
  }

  async notesAfter(afterId: string | undefined, limit: number, userId?: string): Promise<NoteRecord[]> {
    const { rows } =
      userId === undefined
        ? await this.query<NoteRow>('transfer.notesAfter', `SELECT ${NOTE_COLUMNS} FROM notes WHERE id > $1 ORDER BY id LIMIT $2`, [afterId ?? '', limit])
        : await this.query<NoteRow>(
            'transfer.userNotesAfter',
            `SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
            [userId, afterId ?? '', limit],
          )
    return rows.map(noteFromRow)
  }
}
