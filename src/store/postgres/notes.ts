// Note queries of the PostgreSQL driver (mirrors sqlite/notes.ts). Every query is scoped by
// user_id and served by the notes_by_user_in_list_order index.
import { holdsVersion } from '../../note-shape.js'
import { NOTE_LIST_ORDER as LIST_ORDER } from '../list-order.js'
import { type Candidate, SEARCH_PAGE_CHARS, SEARCH_PAGE_NOTES, type SearchPage, searchInPages } from '../search-pages.js'
import type { NotePatch, NoteRecord, NoteWrite, NoteWriteTerms, TextMatcher } from '../types.js'
import { NOTE_COLUMNS, type NoteRow, decodeJsonText, decodeText, noteFromRow, noteInsertParams, noteValues, patchSet, patchValues } from './rows.js'
import { type Query, unlessAccountGone } from './query.js'

/** The user's notes' stored JSON joined into one array in list order; NULL when there are none. */
const LISTING = `'[' || string_agg(json, ',' ${LIST_ORDER}) || ']'`

/** The search prefilter: the note may hold the runs of the LIKE pattern `param`. */
const hasRuns = (param: string) => `(lower(title COLLATE "C") LIKE ${param} OR lower(content COLLATE "C") LIKE ${param}
  OR strpos(title, U&'\\212A') > 0 OR strpos(content, U&'\\212A') > 0
  OR strpos(title, U&'\\017F') > 0 OR strpos(content, U&'\\017F') > 0)`

/** The values every edit statement starts with: $1 to $7 of editStatement. */
export const EDIT_VALUES = 7

export const editValues = (userId: string, noteId: string, now: string, terms: NoteWriteTerms): unknown[] =>
  [userId, noteId, now, terms.expected ?? null, terms.revisionId, terms.keepRevisions, terms.quota?.bytes ?? 0]

/**
 * An edit in one statement (docs/history.md): `old` locks the note and reads it as last committed; `changed` applies
 * the patch, with the next version, only while `old` is as expected ($4, If-Match) and `allowed` holds; `kept` keeps
 * old's text as a revision when it changed. The patch's values follow the first `before` ($1 user, $2 note, $3 now,
 * $5 revision id, $6 revisions kept, $7 the byte quota). The answer: the changed note, or the current one.
 * When a delete commits while the edit waits for the note, `old` is empty; the new version then falls back to the
 * stored one, since PostgreSQL checks NOT NULL before it finds the row gone, and the edit changes nothing (404).
 */
export const editStatement = (before: number, verdictOf?: string) => {
  const [allowed, verdict] = verdictOf ? ["(SELECT v FROM verdict) = 'pass'", '(SELECT v FROM verdict)'] : ['true', 'NULL']
  return `
  WITH ${verdictOf ? `verdict AS (SELECT ${verdictOf} AS v),` : ''} old AS (SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = $1 AND id = $2 FOR UPDATE),
  changed AS (
    UPDATE notes SET ${patchSet(before + 1)}, updated_on = COALESCE(next_note_version((SELECT updated_on FROM old), $3), updated_on)
    WHERE user_id = $1 AND id = $2 AND ($4::text[] IS NULL OR (SELECT updated_on FROM old) = ANY($4::text[])) AND ${allowed}
    RETURNING ${NOTE_COLUMNS}
  ),
  kept AS (
    SELECT keep_revision($5, $1, $2, o.title, o.content, o.tags, o.is_pinned, o.updated_on, $3, $6, $7) AS n FROM old o, changed c
    WHERE o.title IS DISTINCT FROM c.title OR o.content IS DISTINCT FROM c.content OR o.tags IS DISTINCT FROM c.tags
  )
  SELECT true AS changed, ${verdict} AS v, ${NOTE_COLUMNS} FROM changed WHERE (SELECT count(*) FROM kept) >= 0
  UNION ALL
  SELECT false, ${verdict}, ${NOTE_COLUMNS} FROM old WHERE NOT EXISTS (SELECT 1 FROM changed)`
}

export type EditRow = NoteRow & { changed: boolean; v: string | null }

/** An edit statement's answer as Store.updateNote gives it; a note left unchanged by its quota verdict is that verdict. */
export function editOutcome(rows: EditRow[], expected?: readonly string[]): NoteWrite | string {
  const row = rows[0]
  if (!row) return undefined
  const note = noteFromRow(row)
  if (row.changed) return { note }
  if (row.v !== null && row.v !== 'pass' && holdsVersion(note, expected)) return row.v
  return { conflict: note }
}

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

  async updateNote(userId: string, noteId: string, patch: NotePatch, now: string, terms: NoteWriteTerms): Promise<NoteWrite> {
    const { rows } = await this.query<EditRow>('notes.edit', editStatement(EDIT_VALUES), [...editValues(userId, noteId, now, terms), ...patchValues(patch)])
    return editOutcome(rows) as NoteWrite
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
