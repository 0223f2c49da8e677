// Note queries of the SQLite driver (mirrors postgres/notes.ts). Every query is scoped by
// user_id and served by the notes_by_user_in_list_order index.
import type { Database, Statement } from 'better-sqlite3'
import { NOTE_LIST_ORDER as LIST_ORDER } from '../list-order.js'
import { containsFolded } from '../../services/search-prefilter.js'
import { type Candidate, SEARCH_PAGE_CHARS, SEARCH_PAGE_NOTES, type SearchPage, searchInPages } from '../search-pages.js'
import type { NotePatch, NoteRecord, SearchText, TextMatcher } from '../types.js'
import { NOTE_COLUMNS, NOTE_INSERT, PATCH_SET, type NoteRow, noteFromRow, noteParams, patchParams, unlessAccountGone } from './rows.js'

/** Notes a listing reads in one synchronous step; a longer one yields between pages, not holding the event loop. */
export const LIST_PAGE_ROWS = 1000

/** Where a page starts: after this key, in list order. */
type PageKey = { pinned: number; createdOn: string; id: string }
/** A key before every note: is_pinned is 0 or 1. */
const FIRST_PAGE: PageKey = { pinned: 2, createdOn: '', id: '' }

type KeyRow = { is_pinned: number; created_on: string; id: string }
type SearchRow = { id: string; json: string }

/** The search page being read: better-sqlite3 runs one statement at a time, so there is one. */
interface PageScan {
  runs: readonly string[] | undefined
  notes: number
  chars: number
  last?: PageKey
  /** In list order: the rows the statement returns, one for one. */
  candidates: Array<SearchText & { id: string }>
}

/** Thrown by search_candidate() to end a page's statement once the page is full. */
const PAGE_FULL = new Error('search page full')

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
  private readonly searchFirstPage: Statement<[string], SearchRow>
  private readonly searchPage: Statement<[Record<string, unknown>], SearchRow>
  private scan: PageScan | undefined
  /** One read transaction: every statement of a page sees one snapshot. */
  private readonly snapshot: <T>(read: () => T) => T
  constructor(private readonly db: Database) {
    // Search's prefilter, run on each note in list order: it keeps the text of a note that may match and
    // answers 1, so only candidates' JSON is read. Once the page is full it throws PAGE_FULL, ending the statement.
    db.function('search_candidate', { deterministic: false, directOnly: true }, (pinned, createdOn, id, title, content) => {
      const scan = this.scan
      if (!scan) throw new Error('search_candidate() called outside a search page')
      if (scan.notes >= SEARCH_PAGE_NOTES || scan.chars >= SEARCH_PAGE_CHARS) throw PAGE_FULL
      const text = { id: id as string, title: title as string, content: content as string }
      scan.notes++
      scan.chars += text.title.length + text.content.length
      scan.last = { pinned: pinned as number, createdOn: createdOn as string, id: id as string }
      if (scan.runs !== undefined && !containsFolded(text.title, scan.runs) && !containsFolded(text.content, scan.runs)) return 0
      scan.candidates.push(text)
      return 1
    })
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
    // No LIMIT: search_candidate() ends the page by the notes' number and sizes, as they come.
    const candidate = 'search_candidate(is_pinned, created_on, id, title, content)'
    this.searchFirstPage = db.prepare(`SELECT id, json FROM notes WHERE user_id = ? AND ${candidate} ${LIST_ORDER}`)
    this.searchPage = db.prepare(`SELECT id, json FROM notes WHERE user_id = @userId AND ${afterStart} AND ${candidate} ${LIST_ORDER}`)
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

  searchNotesJson(userId: string, matcher: TextMatcher): Promise<string> {
    return searchInPages<PageKey>((after) => this.searchPageFrom(userId, matcher.runs, after ?? FIRST_PAGE), matcher)
  }

  private listPageFrom(userId: string, after: PageKey): { rows: JsonPageRow; next?: PageKey } {
    const rows = (after === FIRST_PAGE ? this.listFirstPage.get(userId) : this.listPage.get({ userId, ...after })) as JsonPageRow
    if (rows.n < LIST_PAGE_ROWS) return { rows }
    const end = this.listPageEnd.get({ userId, ...after })
    return end ? { rows, next: { pinned: end.is_pinned, createdOn: end.created_on, id: end.id } } : { rows }
  }

  /** One page of search candidates after `after`, bounded by search-pages.ts, in one statement. */
  private searchPageFrom(userId: string, runs: readonly string[] | undefined, after: PageKey): SearchPage<PageKey> {
    const scan: PageScan = { runs, notes: 0, chars: 0, candidates: [] }
    const candidates: Candidate[] = []
    let full = false
    this.scan = scan
    try {
      const rows = after === FIRST_PAGE ? this.searchFirstPage.iterate(userId) : this.searchPage.iterate({ userId, ...after })
      for (const row of rows) {
        const text = scan.candidates[candidates.length]
        if (text?.id !== row.id) throw new Error('search_candidate() and the rows of its page disagree')
        candidates.push({ id: row.id, title: text.title, content: text.content, json: row.json })
      }
    } catch (err) {
      if (err !== PAGE_FULL) throw err
      full = true
    } finally {
      this.scan = undefined
    }
    return full && scan.last ? { candidates, next: scan.last } : { candidates }
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
