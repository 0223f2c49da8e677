// Bulk import and paged export for the PostgreSQL driver (mirrors sqlite/transfer.ts). ON CONFLICT
// DO NOTHING: a registration racing an import decides the outcome instead of failing the batch.
import type pg from 'pg'
import type { NoteImportOutcome, StoreDriver, UserImportOutcome } from '../types.js'
import { noteDifferences } from '../note-differences.js'
import { type Query, inTransaction } from './query.js'
import { noteColumns } from '../note-columns.js'
import type { UserRow } from '../row-shapes.js'
import { INSERT_USER, NOTE_COLUMNS, type NoteRow, noteFromRow, noteInsertParams, noteValues, placeholder, userFromRow, userValues } from './rows.js'

const OWNER = placeholder(noteColumns, 1, 'userId')

/** One batch in one transaction on one pooled connection: an outcome per item, in order. */
async function importEach<T, O>(pool: pg.Pool, items: T[], one: (client: pg.PoolClient, item: T) => Promise<O>): Promise<O[]> {
  if (items.length === 0) return []
  return inTransaction(pool, async (client) => {
    const outcomes: O[] = []
    for (const item of items) outcomes.push(await one(client, item))
    return outcomes
  })
}

type TransferMethods = 'importUsers' | 'importNotes' | 'usersAfter' | 'notesAfter'

export function postgresTransfer(query: Query, pool: pg.Pool): Pick<StoreDriver, TransferMethods> {
  return {
    importUsers: (users) =>
      importEach(pool, users, async (client, u): Promise<UserImportOutcome> => {
        const inserted = await client.query(`${INSERT_USER} ON CONFLICT DO NOTHING RETURNING id`, userValues(u))
        if (inserted.rowCount === 1) return 'inserted'
        const same = await client.query('SELECT 1 FROM users WHERE id = $1', [u._id])
        return same.rowCount === 1 ? 'exists' : 'duplicate-email'
      }),

    importNotes: (notes) =>
      importEach(pool, notes, async (client, n): Promise<NoteImportOutcome> => {
        const inserted = await client.query(
          `INSERT INTO notes (${NOTE_COLUMNS}) SELECT ${noteInsertParams(1)} WHERE EXISTS (SELECT 1 FROM users WHERE id = ${OWNER})
           ON CONFLICT (id) DO NOTHING RETURNING id`,
          noteValues(n),
        )
        if (inserted.rowCount === 1) return 'inserted'
        const { rows } = await client.query<NoteRow>(`SELECT ${NOTE_COLUMNS} FROM notes WHERE id = $1`, [n._id])
        const differs = rows[0] && noteDifferences(noteFromRow(rows[0]), n)
        return differs === undefined ? 'missing-user' : differs.length === 0 ? 'exists' : { differs }
      }),

    /** '' sorts before every id in the "C" collation: "from the start". */
    async usersAfter(afterId, limit) {
      const { rows } = await query<UserRow>('transfer.usersAfter', 'SELECT * FROM users WHERE id > $1 ORDER BY id LIMIT $2', [afterId ?? '', limit])
      return rows.map(userFromRow)
    },

    async notesAfter(afterId, limit, userId) {
      const { rows } =
        userId === undefined
          ? await query<NoteRow>('transfer.notesAfter', `SELECT ${NOTE_COLUMNS} FROM notes WHERE id > $1 ORDER BY id LIMIT $2`, [afterId ?? '', limit])
          : await query<NoteRow>(
              'transfer.userNotesAfter',
              `SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
              [userId, afterId ?? '', limit],
            )
      return rows.map(noteFromRow)
    },
  }
}
