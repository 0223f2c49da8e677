// Note queries of the PostgreSQL driver (mirrors sqlite/notes.ts). Every query is scoped by
// user_id and served by the notes_by_user_in_list_order index.
import { NOTE_LIST_ORDER as LIST_ORDER } from '../list-order.js'
import { type Candidate, SEARCH_PAGE_CHARS, SEARCH_PAGE_NOTES, type SearchPage, searchInPages } from '../search-pages.js'
import type { NotePatch, NoteRecord, TextMatcher } from '../types.js'
import { NOTE_COLUMNS, type NoteRow, decodeJsonText, decodeText, noteFromRow, noteInsertParams, noteValues, patchSet, patchValues } from './rows.js'
import { type Query, unlessAccountGone } from './query.js'

/** The user's notes' stored JSON joined into one array in list order; NULL when there are none. */
const LISTING = `'[' || string_agg(json, ',' ${LIST_ORDER}) || ']'`

/** The search prefilter: the note may hold the runs of the LIKE pattern `param`. */
const hasRuns = (param: string) => `(lower(title COLLATE "C") LIKE ${param} OR lower(content COLLATE "C") LIKE ${param}
  OR strpos(title, U&'\\212A') > 0 OR strpos(content, U&'\\212A') > 0
  OR strpos(title, U&'\\017F') > 0 OR strpos(content, U&'\\017F') > 0)`

/** A note's size as a search page counts it: title, content and stored JSON, in bytes. */
const NOTE_SIZE = 'octet_length(title) + octet_length(content) + octet_length(json)'

/** Where a search page starts: after this note, in list order. */
type PageKey = { pinned: boolean; createdOn: string; id: string }

interface SearchRow {
  is_pinned: boolean
  created_on: string
  id: string
  title: string
  content: string
  json: string
  /** How many notes the page's query found before the size bound was applied (a string: bigint). */
  found: string
}

export class PostgresNotes {
  constructor(private readonly query: Query) {}

  async insertNote(note: NoteRecord): Promise<boolean> {
    const insert = this.query('notes.insert', `INSERT INTO notes (${NOTE_COLUMNS}) VALUES (${noteInsertParams(1)})`, noteValues(note))
    return unlessAccountGone(insert.then(() => true))
  }

  async findNote(userId: string, noteId: string): Promise<NoteRecord | undefined> {
    const { rows } = await this.query<NoteRow>('notes.byId', `SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = $1 AND id = $2`, [userId, noteId])
    return rows[0] && noteFromRow(rows[0])
  }

  async updateNote(userId: string, noteId: string, patch: NotePatch, updatedOn: string): Promise<NoteRecord | undefined> {
    const { rows } = await this.query<NoteRow>(
      'notes.update',
      `UPDATE notes SET ${patchSet(4)}, updated_on = $3 WHERE user_id = $1 AND id = $2 RETURNING ${NOTE_COLUMNS}`,
      [userId, noteId, updatedOn, ...patchValues(patch)],
    )
    return rows[0] && noteFromRow(rows[0])
  }

  async deleteNote(userId: string, noteId: string): Promise<NoteRecord | undefined> {
    const { rows } = await this.query<NoteRow>('notes.delete', `DELETE FROM notes WHERE user_id = $1 AND id = $2 RETURNING ${NOTE_COLUMNS}`, [userId, noteId])
    return rows[0] && noteFromRow(rows[0])
  }

  /**
   * PostgreSQL's regex dialect differs from RE2's, so the pattern is never handed to it: the same
   * RE2 matcher as on SQLite tests the notes page by page (search-pages.ts). With required runs,
   * one LIKE `%run%run%` per field drops the notes that lack them first. `lower(... COLLATE "C")`
   * folds ASCII only; K (U+212A) and ſ (U+017F) also fold onto k and s in RE2, so notes holding
   * either are always kept.
   */
  searchNotesJson(userId: string, matcher: TextMatcher): Promise<string> {
    return searchInPages<PageKey>((after) => this.searchPage(userId, matcher.runs, after), matcher)
  }

  /** One page of candidates after `after`, cut in the statement at SEARCH_PAGE_CHARS bytes (search-pages.ts). */
  private async searchPage(userId: string, runs: readonly string[] | undefined, after: PageKey | undefined): Promise<SearchPage<PageKey>> {
    const values: unknown[] = [userId]
    let where = 'user_id = $1'
    if (after) {
      values.push(after.pinned, after.createdOn, after.id)
      where += ' AND (is_pinned, created_on, id) < ($2, $3, $4)'
    }
    if (runs) {
      values.push(likeInOrder(runs))
      where += ` AND ${hasRuns(`$${values.length}`)}`
    }
    const { rows } = await this.query<SearchRow>(
      `notes.searchPage${after ? '.after' : ''}${runs ? '.runs' : ''}`,
      `SELECT is_pinned, created_on, id, title, content, json, found FROM (
         SELECT *, sum(size) OVER (${LIST_ORDER}) - size AS before, count(*) OVER () AS found
         FROM (SELECT is_pinned, created_on, id, title, content, json, ${NOTE_SIZE} AS size
               FROM notes WHERE ${where} ${LIST_ORDER} LIMIT ${SEARCH_PAGE_NOTES + 1}) AS page
       ) AS sized WHERE before < ${SEARCH_PAGE_CHARS} ${LIST_ORDER}`,
      values,
    )
    // One note more than a page is asked for: when it comes, another page follows.
    const page = rows.slice(0, SEARCH_PAGE_NOTES)
    const more = rows.length > page.length || rows.length < Number(rows[0]?.found ?? 0)
    const candidates = page.map((r): Candidate => ({ id: r.id, title: decodeText(r.title), content: decodeText(r.content), json: decodeJsonText(r.json) }))
    const last = page[page.length - 1]
    return more && last ? { candidates, next: { pinned: last.is_pinned, createdOn: last.created_on, id: last.id } } : { candidates }
  }

  /** The listing joined by PostgreSQL from the stored JSON: no record is made (docs/performance.md). */
  async listNotesJson(userId: string): Promise<string> {
    const { rows } = await this.query<{ json: string | null }>('notes.listJson', `SELECT ${LISTING} AS json FROM notes WHERE user_id = $1`, [userId])
    const text = rows[0]?.json
    return text ? decodeJsonText(text) : '[]'
  }
}

/** A LIKE pattern of text holding the runs in order, `%a%b%`, LIKE's `%`, `_` and `\\` escaped. */
export function likeInOrder(runs: readonly string[]): string {
  return `%${runs.map((run) => run.replace(/[\\%_]/g, '\\$&')).join('%')}%`
}
