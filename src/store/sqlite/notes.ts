// Note queries of the SQLite driver (mirrors postgres/notes.ts). Every query is scoped by
// user_id and served by the notes_by_user_in_list_order index.
import type { Database, Statement } from 'better-sqlite3'
import type { NotePatch, NoteRecord, TextMatcher } from '../types.js'
import { type NoteRow, noteFromRow } from './rows.js'

const LIST_ORDER = 'ORDER BY is_pinned DESC, created_on DESC, id DESC'

/**
 * Notes a search tests in one synchronous step. A search runs page by page in list order and
 * yields to the event loop between pages, so one user's search over many thousands of notes
 * never stalls other requests for long (issue 5: a 500-character pattern over 10 000 notes kept
 * the event loop blocked for over 500 ms when the whole scan ran in one statement).
 */
export const SEARCH_PAGE_ROWS = 256

/**
 * Notes a listing reads in one synchronous step. A list that fits in one page (nearly all) is
 * read by one statement, as one consistent snapshot; a longer one is read page by page with a
 * yield between pages, so a user with 10 000 notes does not hold the event loop for the whole
 * read (issue 5). A note re-pinned while a long list is being read may then be left out of that
 * one answer; none appears twice.
 */
export const LIST_PAGE_ROWS = 1000

/** Where a search page starts: after this key, in list order. */
interface PageKey {
  pinned: number
  createdOn: string
  id: string
}
/** A key before every note: is_pinned is 0 or 1. */
const FIRST_PAGE: PageKey = { pinned: 2, createdOn: '', id: '' }

interface KeyRow {
  is_pinned: number
  created_on: string
  id: string
}

export class SqliteNotes {
  private readonly insert: Statement
  private readonly byId: Statement<[string, string], NoteRow>
  private readonly update: Statement<[Record<string, unknown>], NoteRow>
  private readonly remove: Statement<[string, string], NoteRow>
  private readonly listPage: Statement<[Record<string, unknown>], NoteRow>
  private readonly pageEnd: Statement<[Record<string, unknown>], KeyRow>
  private readonly matchesInPage: Statement<[Record<string, unknown>], NoteRow>
  private readonly matchesToEnd: Statement<[Record<string, unknown>], NoteRow>
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
    this.listPage = db.prepare(
      `SELECT * FROM notes WHERE user_id = @userId AND (is_pinned, created_on, id) < (@pinned, @createdOn, @id)
       ${LIST_ORDER} LIMIT @limit`,
    )
    // A search page is two statements. The first finds the key of the page's last note by
    // walking the list-order index alone (no row is read, nothing reaches JS). The second tests
    // the notes of the page inside SQLite and returns only the matching ones, whole: a note that
    // does not match never becomes a JS object (bench/search-in-sql.ts measures the difference).
    const afterStart = '(is_pinned, created_on, id) < (@pinned, @createdOn, @id)'
    this.pageEnd = db.prepare(
      `SELECT is_pinned, created_on, id FROM notes WHERE user_id = @userId AND ${afterStart}
       ${LIST_ORDER} LIMIT 1 OFFSET @offset`,
    )
    this.matchesInPage = db.prepare(
      `SELECT * FROM notes WHERE user_id = @userId AND ${afterStart}
         AND (is_pinned, created_on, id) >= (@endPinned, @endCreatedOn, @endId)
         AND note_matches(title, content)
       ${LIST_ORDER}`,
    )
    this.matchesToEnd = db.prepare(
      `SELECT * FROM notes WHERE user_id = @userId AND ${afterStart} AND note_matches(title, content) ${LIST_ORDER}`,
    )
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

  async listNotes(userId: string): Promise<NoteRecord[]> {
    const notes: NoteRecord[] = []
    const seen = new Set<string>()
    let after = FIRST_PAGE
    for (;;) {
      const rows = this.listPage.all({ userId, ...after, limit: LIST_PAGE_ROWS })
      for (const row of rows) {
        if (!seen.has(row.id)) notes.push(noteFromRow(row))
        seen.add(row.id)
      }
      const last = rows.at(-1)
      if (rows.length < LIST_PAGE_ROWS || !last) return notes
      after = { pinned: last.is_pinned, createdOn: last.created_on, id: last.id }
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  async searchNotes(userId: string, matcher: TextMatcher): Promise<NoteRecord[]> {
    const found: NoteRecord[] = []
    const seen = new Set<string>() // a note re-pinned between pages may be scanned twice
    let after = FIRST_PAGE
    for (;;) {
      const page = this.searchPage(userId, matcher, after)
      for (const note of page.matches) {
        if (!seen.has(note._id)) found.push(note)
        seen.add(note._id)
      }
      if (!page.next) return found
      after = page.next
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  /** Tests one page synchronously: the matcher is set only while its statement runs. */
  private searchPage(userId: string, matcher: TextMatcher, after: PageKey): { matches: NoteRecord[]; next?: PageKey } {
    const start = { userId, ...after }
    const end = this.pageEnd.get({ ...start, offset: SEARCH_PAGE_ROWS - 1 })
    this.activeMatcher = matcher
    let rows: NoteRow[]
    try {
      rows = end
        ? this.matchesInPage.all({ ...start, endPinned: end.is_pinned, endCreatedOn: end.created_on, endId: end.id })
        : this.matchesToEnd.all(start)
    } finally {
      this.activeMatcher = undefined
    }
    const matches = rows.map(noteFromRow)
    return end ? { matches, next: { pinned: end.is_pinned, createdOn: end.created_on, id: end.id } } : { matches }
  }
}
