// Bulk import and paged export for the SQLite driver (notes-service import / export). Each batch
// is one IMMEDIATE transaction: one fsync per batch instead of one per record, and the checks
// and inserts of a batch see a consistent database.
import type { Database, Statement } from 'better-sqlite3'
import { noteDifferences } from '../note-differences.js'
import type { NoteImportOutcome, NoteRecord, UserImportOutcome, UserRecord } from '../types.js'
import { NOTE_COLUMNS, NOTE_INSERT, type NoteRow, type UserRow, noteFromRow, noteParams, userFromRow } from './rows.js'

export class SqliteTransfer {
  private readonly userIdExists: Statement<[string], number>
  private readonly emailKeyExists: Statement<[string], number>
  private readonly insertUser: Statement
  private readonly noteById: Statement<[string], NoteRow>
  private readonly insertNote: Statement
  private readonly usersPage: Statement<[string, number], UserRow>
  private readonly notesPage: Statement<[string, number], NoteRow>
  private readonly userNotesPage: Statement<[string, string, number], NoteRow>
  private readonly importUserBatch: (users: UserRecord[]) => UserImportOutcome[]
  private readonly importNoteBatch: (notes: NoteRecord[]) => NoteImportOutcome[]

  constructor(db: Database) {
    this.userIdExists = db.prepare<[string], number>('SELECT 1 FROM users WHERE id = ?').pluck()
    this.emailKeyExists = db.prepare<[string], number>('SELECT 1 FROM users WHERE email_key = ?').pluck()
    this.insertUser = db.prepare(
      `INSERT INTO users (id, full_name, email, email_key, password_hash, created_on)
       VALUES (@_id, @fullName, @email, @emailKey, @passwordHash, @createdOn)`,
    )
    this.noteById = db.prepare<[string], NoteRow>(`SELECT ${NOTE_COLUMNS} FROM notes WHERE id = ?`)
    this.insertNote = db.prepare(`INSERT INTO notes ${NOTE_INSERT}`)
    // '' sorts before every id, so it stands for "from the start".
    this.usersPage = db.prepare('SELECT * FROM users WHERE id > ? ORDER BY id LIMIT ?')
    this.notesPage = db.prepare(`SELECT ${NOTE_COLUMNS} FROM notes WHERE id > ? ORDER BY id LIMIT ?`)
    this.userNotesPage = db.prepare(`SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?`)

    const importUsers = db.transaction((users: UserRecord[]) =>
      users.map((user): UserImportOutcome => {
        if (this.userIdExists.get(user._id)) return 'exists'
        if (this.emailKeyExists.get(user.emailKey)) return 'duplicate-email'
        this.insertUser.run(user)
        return 'inserted'
      }),
    )
    const importNotes = db.transaction((notes: NoteRecord[]) =>
      notes.map((note): NoteImportOutcome => {
        const stored = this.noteById.get(note._id)
        if (stored) {
          const differs = noteDifferences(noteFromRow(stored), note)
          return differs.length === 0 ? 'exists' : { differs }
        }
        if (!this.userIdExists.get(note.userId)) return 'missing-user'
        this.insertNote.run(noteParams(note))
        return 'inserted'
      }),
    )
    this.importUserBatch = (users) => importUsers.immediate(users)
    this.importNoteBatch = (notes) => importNotes.immediate(notes)
  }

  importUsers(users: UserRecord[]): UserImportOutcome[] {
    return users.length ? this.importUserBatch(users) : []
  }

  importNotes(notes: NoteRecord[]): NoteImportOutcome[] {
    return notes.length ? this.importNoteBatch(notes) : []
  }

  usersAfter(afterId: string | undefined, limit: number): UserRecord[] {
    return this.usersPage.all(afterId ?? '', limit).map(userFromRow)
  }

  notesAfter(afterId: string | undefined, limit: number, userId?: string): NoteRecord[] {
    const rows = userId === undefined ? this.notesPage.all(afterId ?? '', limit) : this.userNotesPage.all(userId, afterId ?? '', limit)
    return rows.map(noteFromRow)
  }
}
