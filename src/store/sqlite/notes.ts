// Note queries of the SQLite driver (mirrors postgres/notes.ts). Every query is scoped by
// user_id and served by the notes_by_user_in_list_order index.
import type { Database, Statement } from 'better-sqlite3'
import { NOTE_LIST_ORDER as LIST_ORDER } from '../list-order.js'
import type { NotePatch, NoteRecord } from '../types.js'
import { NOTE_COLUMNS, NOTE_INSERT, PATCH_SET, type NoteRow, noteFromRow, noteParams, patchParams, unlessAccountGone } from './rows.js'

/** Notes a listing reads in one synchronous step; a longer one yields between pages, not holding the event loop. */
export const LIST_PAGE_ROWS = 1000

/** Where a page starts: after this key, in list order. */
type PageKey = { pinned: number; createdOn: string; id: string }
/** A key before every note: is_pinned is 0 or 1. */
const FIRST_PAGE: PageKey = { pinned: 2, createdOn: '', id: '' }

type KeyRow = { is_pinned: number; created_on: string; id: string }
/** A page as SQLite hands it over: the notes and their ids as JSON arrays, and how many. */
type JsonPageRow = { notes: string; ids: string; n: number }

/**
 * Joins the stored JSON of a subquery's rows into a page, in list order: ORDER BY and LIMIT make SQLite
 * run the subquery as a co-routine (the store contract checks it). No rows: NULL, never joined (JsonPages.add).
 */
const pageOf = (subquery: string) =>
  `SELECT '[' || group_concat(json, ',') || ']' AS notes, json_group_array(id) AS ids, count(*) AS n FROM (${subquery})`

export class SqliteNotes {
  private readonly insert: Statement
  private readonly byId: Statement<[string, string], NoteRow>
  private readonly update: Statement<[Record<string, unknown>], NoteRow>
  private readonly remove: Statement<[string, string], NoteRow>
  private readonly listFirstPage: Statement<[string], JsonPageRow>
  private readonly listPage: Statement<[Record<string, unknown>], JsonPageRow>
  private readonly listPageEnd: Statement<[Record<string, unknown>], KeyRow>
  /** One read transaction: every statement of a page sees one snapshot. */
  private readonly snapshot: <T>(read: () => T) => T
  constructor(private readonly db: Database) {
    this.insert = db.prepare(`INSERT INTO notes ${NOTE_INSERT}`)
    this.byId = db.prepare(`SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = ? AND id = ?`)
    this.update = db.prepare(
      `UPDATE notes SET ${PATCH_SET}, updated_on = @updatedOn WHERE user_id = @userId AND id = @noteId RETURNING ${NOTE_COLUMNS}`,
    )
    this.remove = db.prepare(`DELETE FROM notes WHERE user_id = ? AND id = ? RETURNING ${NOTE_COLUMNS}`)
    const afterStart = '(is_pinned, created_on, id) < (@pinned, @createdOn, @id)'
    // Page sizes are written into the SQL, and the first page has no row-value bound: both make
    // SQLite's plan faster (docs/performance.md, "What shaped the design").
    this.listFirstPage = db.prepare(pageOf(`SELECT id, json FROM notes WHERE user_id = ? ${LIST_ORDER} LIMIT ${LIST_PAGE_ROWS}`))
    this.listPage = db.prepare(pageOf(
      `SELECT id, json FROM notes WHERE user_id = @userId AND ${afterStart} ${LIST_ORDER} LIMIT ${LIST_PAGE_ROWS}`,
    ))
    // The key of a page's last note, found on the list-order index alone.
    this.listPageEnd = db.prepare(
      `SELECT is_pinned, created_on, id FROM notes WHERE user_id = @userId AND ${afterStart}
       ${LIST_ORDER} LIMIT 1 OFFSET ${LIST_PAGE_ROWS - 1}`,
    )
    const inTransaction = db.transaction((read: () => unknown) => read())
    this.snapshot = <T>(read: () => T) => inTransaction(read) as T
  }

  /** A foreign key failure (the account gone) fails this statement alone, not the writer's transaction. */
  insertNote(note: NoteRecord): boolean {
    return unlessAccountGone(() => this.insert.run(noteParams(note)).changes === 1)
  }

  findNote(userId: string, noteId: string): NoteRecord | undefined {
    const row = this.byId.get(userId, noteId)
    return row && noteFromRow(row)
  }

  updateNote(userId: string, noteId: string, patch: NotePatch, updatedOn: string): NoteRecord | undefined {
    const row = this.update.get({ userId, noteId, updatedOn, ...patchParams(patch) })
    return row && noteFromRow(row)
  }

  deleteNote(userId: string, noteId: string): NoteRecord | undefined {
    const row = this.remove.get(userId, noteId)
    return row && noteFromRow(row)
  }

  async listNotesJson(userId: string): Promise<string> {
    const pages = new JsonPages()
    let after = FIRST_PAGE
    for (;;) {
      const page = this.snapshot(() => this.listPageFrom(userId, after))
      pages.add(page.rows)
      if (!page.next) return pages.json()
      after = page.next
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  private listPageFrom(userId: string, after: PageKey): { rows: JsonPageRow; next?: PageKey } {
    const rows = (after === FIRST_PAGE ? this.listFirstPage.get(userId) : this.listPage.get({ userId, ...after })) as JsonPageRow
    if (rows.n < LIST_PAGE_ROWS) return { rows }
    const end = this.listPageEnd.get({ userId, ...after })
    return end ? { rows, next: { pinned: end.is_pinned, createdOn: end.created_on, id: end.id } } : { rows }
  }


}

/** Joins the JSON pages of one answer. A note re-pinned between pages may come twice: only such a page is parsed to drop it. */
class JsonPages {
  private readonly parts: string[] = []
  private seen: Set<string> | undefined
  private first: JsonPageRow | undefined

  add(page: JsonPageRow): void {
    if (page.n === 0) return
    if (!this.first) {
      this.first = page
      this.parts.push(page.notes)
      return
    }
    this.seen ??= new Set(JSON.parse(this.first.ids) as string[])
    const ids = JSON.parse(page.ids) as string[]
    let notes = page.notes
    if (ids.some((id) => this.seen?.has(id))) {
      const all = JSON.parse(notes) as unknown[]
      const fresh = all.filter((_, i) => !this.seen?.has(ids[i] as string))
      notes = JSON.stringify(fresh)
    }
    if (notes.length > 2) this.parts.push(notes)
    for (const id of ids) this.seen.add(id)
  }

  /** Joined with `+`: V8 keeps a tree of slices until the text is written, so it is copied once. */
  json(): string {
    if (this.parts.length === 0) return '[]'
    if (this.parts.length === 1) return this.parts[0] as string
    let json = ''
    this.parts.forEach((part, i) => {
      json += i === 0 ? part.slice(0, -1) : part.slice(1, -1)
      json += i === this.parts.length - 1 ? ']' : ','
    })
    return json
  }
}
