// Bulk import and paged export for the SQLite driver. Each import batch is one IMMEDIATE
// transaction: one fsync, and its checks and inserts see a consistent database.
import type { Database } from 'better-sqlite3'
import { noteDifferences } from '../note-differences.js'
import type { NoteImportOutcome, NoteRecord, StoreDriver, UserImportOutcome, UserRecord } from '../types.js'
import type { UserRow } from '../row-shapes.js'
import { NOTE_COLUMNS, NOTE_INSERT, type NoteRow, noteFromRow, noteParams, userFromRow } from './rows.js'
import { INSERT_USER } from './users.js'

type TransferMethods = 'importUsers' | 'importNotes' | 'usersAfter' | 'notesAfter'

export function sqliteTransfer(db: Database): Pick<StoreDriver, TransferMethods> {
  const userIdExists = db.prepare<[string], number>('SELECT 1 FROM users WHERE id = ?').pluck()
  const emailKeyExists = db.prepare<[string], number>('SELECT 1 FROM users WHERE email_key = ?').pluck()
  const insertUser = db.prepare(INSERT_USER)
  const noteById = db.prepare<[string], NoteRow>(`SELECT ${NOTE_COLUMNS} FROM notes WHERE id = ?`)
  const insertNote = db.prepare(`INSERT INTO notes ${NOTE_INSERT}`)
  // '' sorts before every id, so it stands for "from the start".
  const usersPage = db.prepare<[string, number], UserRow>('SELECT * FROM users WHERE id > ? ORDER BY id LIMIT ?')
  const notesPage = db.prepare<[string, number], NoteRow>(`SELECT ${NOTE_COLUMNS} FROM notes WHERE id > ? ORDER BY id LIMIT ?`)
  const userNotesPage = db.prepare<[string, string, number], NoteRow>(
    `SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?`,
  )
  const importUsers = db.transaction((users: UserRecord[]) =>
    users.map((user): UserImportOutcome => {
      if (userIdExists.get(user._id)) return 'exists'
      if (emailKeyExists.get(user.emailKey)) return 'duplicate-email'
      insertUser.run(user)
      return 'inserted'
    }),
  )
  const importNotes = db.transaction((notes: NoteRecord[]) =>
    notes.map((note): NoteImportOutcome => {
      const stored = noteById.get(note._id)
      if (stored) {
        const differs = noteDifferences(noteFromRow(stored), note)
        return differs.length === 0 ? 'exists' : { differs }
      }
      if (!userIdExists.get(note.userId)) return 'missing-user'
      insertNote.run(noteParams(note))
      return 'inserted'
    }),
  )
  return {
    importUsers: async (users) => (users.length ? importUsers.immediate(users) : []),
    importNotes: async (notes) => (notes.length ? importNotes.immediate(notes) : []),
    usersAfter: async (afterId, limit) => usersPage.all(afterId ?? '', limit).map(userFromRow),
    notesAfter: async (afterId, limit, userId) => {
      const rows = userId === undefined ? notesPage.all(afterId ?? '', limit) : userNotesPage.all(userId, afterId ?? '', limit)
      return rows.map(noteFromRow)
    },
  }
}
