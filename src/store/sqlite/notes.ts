// Note queries of the SQLite driver (mirrors postgres/notes.ts). Every query is scoped by
// user_id and served by the notes_by_user_in_list_order index.
import type { Database, Statement } from 'better-sqlite3'
import type { NotePatch, NoteRecord, TextMatcher } from '../types.js'
import { NOTE_COLUMNS, type NoteRow, type RawNoteRow, noteFromRaw, noteFromRow } from './rows.js'

const LIST_ORDER = 'ORDER BY is_pinned DESC, created_on DESC, id DESC'

export class SqliteNotes {
  private readonly insert: Statement
  private readonly byId: Statement<[string, string], NoteRow>
  private readonly update: Statement<[Record<string, unknown>], NoteRow>
  private readonly remove: Statement<[string, string], NoteRow>
  private readonly list: Statement<[string], RawNoteRow>
  private readonly search: Statement<[string], RawNoteRow>
  /**
   * The matcher of the search running now. better-sqlite3 runs a statement synchronously, so
   * exactly one search is in progress while note_matches() is called; the SQL function reads
   * it from here. Filtering inside SQLite keeps non-matching rows from ever becoming JS objects.
   */
  private activeMatcher: TextMatcher | undefined

  constructor(private readonly db: Database) {
    db.function('note_matches', { deterministic: false, directOnly: true }, (title, content) => {
      const m = this.activeMatcher
      if (!m) throw new Error('note_matches() called outside a search')
      return m.test(title as string) || m.test(content as string) ? 1 : 0
    })
    this.insert = db.prepare(
      `INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
       VALUES (@_id, @userId, @title, @content, @tags, @isPinned, @createdOn, @updatedOn)`,
    )
    this.byId = db.prepare('SELECT * FROM notes WHERE user_id = ? AND id = ?')
    // COALESCE keeps a column when its parameter is NULL (the field was not in the patch).
    this.update = db.prepare(
      `UPDATE notes SET
         title = COALESCE(@title, title),
         content = COALESCE(@content, content),
         tags = COALESCE(@tags, tags),
         is_pinned = COALESCE(@isPinned, is_pinned),
         updated_on = @updatedOn
       WHERE user_id = @userId AND id = @noteId
       RETURNING *`,
    )
    this.remove = db.prepare('DELETE FROM notes WHERE user_id = ? AND id = ? RETURNING *')
    this.list = db.prepare<[string], RawNoteRow>(`SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = ? ${LIST_ORDER}`).raw()
    this.search = db
      .prepare<[string], RawNoteRow>(
        `SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = ? AND note_matches(title, content) ${LIST_ORDER}`,
      )
      .raw()
  }

  insertNote(note: NoteRecord): void {
    this.insert.run({ ...note, tags: JSON.stringify(note.tags), isPinned: note.isPinned ? 1 : 0 })
  }

  findNote(userId: string, noteId: string): NoteRecord | undefined {
    const row = this.byId.get(userId, noteId)
    return row && noteFromRow(row)
  }

  updateNote(userId: string, noteId: string, patch: NotePatch, updatedOn: string): NoteRecord | undefined {
    const row = this.update.get({
      userId,
      noteId,
      updatedOn,
      title: patch.title ?? null,
      content: patch.content ?? null,
      tags: patch.tags === undefined ? null : JSON.stringify(patch.tags),
      isPinned: patch.isPinned === undefined ? null : patch.isPinned ? 1 : 0,
    })
    return row && noteFromRow(row)
  }

  deleteNote(userId: string, noteId: string): NoteRecord | undefined {
    const row = this.remove.get(userId, noteId)
    return row && noteFromRow(row)
  }

  listNotes(userId: string): NoteRecord[] {
    return this.list.all(userId).map(noteFromRaw)
  }

  searchNotes(userId: string, matcher: TextMatcher): NoteRecord[] {
    this.activeMatcher = matcher
    try {
      return this.search.all(userId).map(noteFromRaw)
    } finally {
      this.activeMatcher = undefined
    }
  }
}
