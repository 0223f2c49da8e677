// Note queries of the PostgreSQL driver (mirrors sqlite/notes.ts). Every query is scoped by
// user_id and served by the notes_by_user_in_list_order index.
import type { QueryResult, QueryResultRow } from 'pg'
import { type KeptSearch, NOTE_OVERHEAD_BYTES, SEARCHED_ONCE, type SearchableNote, TOO_LARGE, keptSearchBytes, searchKept } from '../kept-search.js'
import type { NotePatch, NoteRecord, TextMatcher } from '../types.js'
import { NOTE_COLUMNS, type NoteRow, decodeJsonText, decodeText, encodeText, noteFromRow } from './rows.js'
import { NOTE_VERSION, type NoteVersionReader } from './note-versions.js'
import type { Query } from './query.js'
import type { VersionedCache } from './versioned-cache.js'

const LIST_ORDER = 'ORDER BY is_pinned DESC, created_on DESC, id DESC'
/** The user's notes' stored JSON joined into one array in list order; NULL when there are none. */
const LISTING = `'[' || string_agg(json, ',' ${LIST_ORDER}) || ']'`

/** The prefilter of searchNotes: the note may hold the runs of the LIKE pattern $2 (see there). */
const HAS_RUNS = `(lower(title COLLATE "C") LIKE $2 OR lower(content COLLATE "C") LIKE $2
  OR strpos(title, U&'\\212A') > 0 OR strpos(content, U&'\\212A') > 0
  OR strpos(title, U&'\\017F') > 0 OR strpos(content, U&'\\017F') > 0)`

interface SearchRow {
  title: string
  content: string
  json: string
}

/** Where listings and notes for search are kept between requests, and how their versions are checked. */
export interface KeptListings {
  cache: VersionedCache<Buffer>
  searches: VersionedCache<KeptSearch>
  /** The largest entry `searches` keeps (kept-search.ts largestKept). */
  searchBytes: number
  versions: NoteVersionReader
}

/** A row of the searchable-notes read: every row has the version and the size; the note's columns are NULL on the one row of a user not read. */
interface SearchableRow {
  version: string | null
  bytes: string | null
  title: string | null
  content: string | null
  json: string | null
}

export class PostgresNotes {
  /** `kept`: the listing and search caches and their version reader (none: every listing and search is read). */
  constructor(
    private readonly query: Query,
    private readonly kept?: KeptListings,
  ) {}

  async insertNote(note: NoteRecord): Promise<boolean> {
    try {
      await this.query(
        'notes.insert',
        `INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [note._id, note.userId, encodeText(note.title), encodeText(note.content), note.tags.map(encodeText), note.isPinned, note.createdOn, note.updatedOn],
      )
      return true
    } catch (err) {
      // foreign_key_violation: notes.user_id names no account (Store.insertNote).
      if ((err as { code?: unknown }).code === '23503') return false
      throw err
    }
  }

  async findNote(userId: string, noteId: string): Promise<NoteRecord | undefined> {
    const { rows } = await this.query<NoteRow>('notes.byId', `SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = $1 AND id = $2`, [userId, noteId])
    return rows[0] && noteFromRow(rows[0])
  }

  /** COALESCE keeps a column when its parameter is NULL (the field was not in the patch). */
  async updateNote(userId: string, noteId: string, patch: NotePatch, updatedOn: string): Promise<NoteRecord | undefined> {
    const { rows } = await this.query<NoteRow>(
      'notes.update',
      `UPDATE notes SET
         title = COALESCE($3, title),
         content = COALESCE($4, content),
         tags = COALESCE($5::text[], tags),
         is_pinned = COALESCE($6, is_pinned),
         updated_on = $7
       WHERE user_id = $1 AND id = $2
       RETURNING ${NOTE_COLUMNS}`,
      [
        userId,
        noteId,
        patch.title === undefined ? null : encodeText(patch.title),
        patch.content === undefined ? null : encodeText(patch.content),
        patch.tags === undefined ? null : patch.tags.map(encodeText),
        patch.isPinned ?? null,
        updatedOn,
      ],
    )
    return rows[0] && noteFromRow(rows[0])
  }

  async deleteNote(userId: string, noteId: string): Promise<NoteRecord | undefined> {
    const { rows } = await this.query<NoteRow>('notes.delete', `DELETE FROM notes WHERE user_id = $1 AND id = $2 RETURNING ${NOTE_COLUMNS}`, [userId, noteId])
    return rows[0] && noteFromRow(rows[0])
  }

  async listNotes(userId: string): Promise<NoteRecord[]> {
    const { rows } = await this.query<NoteRow>('notes.list', `SELECT ${NOTE_COLUMNS} FROM notes WHERE user_id = $1 ${LIST_ORDER}`, [userId])
    return rows.map(noteFromRow)
  }

  /**
   * The pattern is never handed to PostgreSQL: its regex dialect (`~*`) differs from RE2's, so
   * the user's notes come back in list order and the same RE2 matcher as the SQLite store
   * filters them here. Results and order are therefore identical on both stores; the cost is
   * bounded by the size of one user's notes (the index serves the scan), as for a listing.
   *
   * When the pattern has required runs of characters (TextMatcher.runs), PostgreSQL first drops
   * the notes whose title and content each lack them, so those never cross the network: one LIKE
   * `%run%run%` per field (one pass over it, the runs in order). `lower(... COLLATE "C")`
   * lower-cases ASCII letters only, which is RE2's folding for them except K (U+212A KELVIN SIGN)
   * and ſ (U+017F LONG S), which also fold onto k and s: notes holding either are always kept.
   * The stored escape of U+0000 (rows.ts) leaves every run of such characters as it is.
   */
  async searchNotes(userId: string, matcher: TextMatcher): Promise<NoteRecord[]> {
    const { rows } = await this.candidates<NoteRow>('notes.search', NOTE_COLUMNS, userId, matcher)
    return rows.map(noteFromRow).filter((n) => matcher.test(n.title) || matcher.test(n.content))
  }

  /** The columns of the user's notes that may match, in list order: searchNotes says which. */
  private candidates<Row extends QueryResultRow>(name: string, columns: string, userId: string, matcher: TextMatcher): Promise<QueryResult<Row>> {
    if (matcher.runs === undefined) return this.query<Row>(`${name}.all`, `SELECT ${columns} FROM notes WHERE user_id = $1 ${LIST_ORDER}`, [userId])
    return this.query<Row>(`${name}.runs`, `SELECT ${columns} FROM notes WHERE user_id = $1 AND ${HAS_RUNS} ${LIST_ORDER}`, [
      userId,
      likeInOrder(matcher.runs),
    ])
  }

  /**
   * One round trip when the user has notes: notes.user_id references users(id) (no cascade),
   * so a note read in the statement's snapshot proves its account existed in that snapshot.
   * Only an empty listing needs the account looked up.
   */
  async listNotesJsonOfAccount(userId: string, accountExists: () => Promise<boolean>): Promise<Buffer | undefined> {
    const json = await this.listJsonOrNone(userId)
    if (json) return json
    return (await accountExists()) ? Buffer.from('[]') : undefined
  }

  async listNotesJson(userId: string): Promise<Buffer> {
    return (await this.listJsonOrNone(userId)) ?? Buffer.from('[]')
  }

  /**
   * The listing as one JSON text value joined by PostgreSQL from each note's stored JSON
   * (migration 2), or undefined when the user has no notes: the driver parses one field, and no
   * record is made or stringified, which takes about half the service's CPU of building records
   * (docs/performance.md).
   *
   * With a listing cache, a cached listing is sent when the version of the user's notes
   * (migration 4) is still the one it was read at (note-versions.ts reads it); otherwise the
   * listing is read again with its version, in one statement, so in one snapshot.
   */
  private async listJsonOrNone(userId: string): Promise<Buffer | undefined> {
    const kept = this.kept
    const cached = kept?.cache.get(userId)
    // Unchanged notes are still there, so the account is too (see listNotesJsonOfAccount).
    if (kept && cached && (await kept.versions.read(userId)) === cached.version) return cached.kept
    const { rows } = kept
      ? await this.query<{ version: string | null; json: string | null }>(
          'notes.listJsonVersioned',
          `SELECT (SELECT ${NOTE_VERSION} FROM note_versions WHERE user_id = $1) AS version,
                  (SELECT ${LISTING} FROM notes WHERE user_id = $1) AS json`,
          [userId],
        )
      : await this.query<{ version?: undefined; json: string | null }>('notes.listJson', `SELECT ${LISTING} AS json FROM notes WHERE user_id = $1`, [userId])
    const text = rows[0]?.json
    if (!text) return undefined
    const json = Buffer.from(decodeJsonText(text))
    const version = rows[0]?.version
    if (version) kept?.cache.set(userId, version, json)
    return json
  }

  /**
   * With the caches on, the user's notes kept for search (kept-search.ts) when the database says
   * they are unchanged; the first search since they changed runs the search's own query and
   * leaves a mark, the second reads them to keep. A user whose notes are too large to keep, and
   * every user with the caches off, is searched by the query.
   */
  async searchNotesJson(userId: string, matcher: TextMatcher): Promise<Buffer> {
    const kept = this.kept
    if (!kept) return this.searchByQuery(userId, matcher)
    const cached = kept.searches.get(userId)
    const version = await kept.versions.read(userId)
    let notes: KeptSearch | undefined
    if (version !== null && cached?.version === version) {
      // The second search over unchanged notes reads them to keep (kept-search.ts).
      notes = cached.kept === SEARCHED_ONCE ? await this.readSearchable(userId, kept) : cached.kept
    } else if (version !== null) {
      // The first since they changed is answered by the query. The mark's version was read
      // before the query, so a write in between only makes the next search query again.
      kept.searches.set(userId, version, SEARCHED_ONCE)
    }
    return typeof notes === 'object' ? searchKept(notes, matcher) : this.searchByQuery(userId, matcher)
  }

  /**
   * The user's notes as search keeps them (kept-search.ts), with their version, in one statement
   * (one snapshot), and kept. The size is summed first, in the same statement, so a user whose
   * notes are too large to keep sends one row, not all of them: TOO_LARGE, and the search's own
   * query runs. The LEFT JOIN gives that row (and the one of a user without notes) its version.
   */
  private async readSearchable(userId: string, kept: KeptListings): Promise<KeptSearch> {
    const { rows } = await this.query<SearchableRow>(
      'notes.searchable',
      `WITH size AS (SELECT sum(char_length(title) + char_length(content) + char_length(json) + ${NOTE_OVERHEAD_BYTES}) AS bytes FROM notes WHERE user_id = $1)
       SELECT (SELECT ${NOTE_VERSION} FROM note_versions WHERE user_id = $1) AS version, size.bytes, n.title, n.content, n.json
       FROM size LEFT JOIN notes n ON n.user_id = $1 AND size.bytes <= $2
       ORDER BY n.is_pinned DESC, n.created_on DESC, n.id DESC`,
      [userId, kept.searchBytes],
    )
    const first = rows[0]
    let notes: KeptSearch = TOO_LARGE
    if (first?.json === null && first.bytes === null) notes = [] // no notes
    else if (first?.json !== null) {
      notes = rows.map((r): SearchableNote => ({ title: decodeText(r.title ?? ''), content: decodeText(r.content ?? ''), json: decodeJsonText(r.json ?? '') }))
      if (keptSearchBytes(notes) > kept.searchBytes) notes = TOO_LARGE
    }
    if (first?.version) kept.searches.set(userId, first.version, notes)
    return notes
  }

  /**
   * The search's own query: the candidates' title, content and stored JSON (migration 2); RE2
   * tests the first two here, and the matches' JSON is joined as it is, so no record is made or
   * stringified. (Building each candidate's JSON per query, in SQL, was tried when there was no
   * stored JSON: the service's CPU fell, but the answer came later, because PostgreSQL built JSON
   * for every candidate while RE2 kept one in nine.)
   */
  private async searchByQuery(userId: string, matcher: TextMatcher): Promise<Buffer> {
    const { rows } = await this.candidates<SearchRow>('notes.searchJson', 'title, content, json', userId, matcher)
    const found = rows.filter((r) => matcher.test(decodeText(r.title)) || matcher.test(decodeText(r.content)))
    return Buffer.from(`[${found.map((r) => decodeJsonText(r.json)).join(',')}]`)
  }
}

/**
 * A LIKE pattern matching text that holds the runs one after the other: `%a%b%`, with LIKE's
 * own wildcards in a run (`%`, `_`, and its escape character, the backslash) escaped.
 * https://www.postgresql.org/docs/current/functions-matching.html#FUNCTIONS-LIKE
 */
export function likeInOrder(runs: readonly string[]): string {
  return `%${runs.map((run) => run.replace(/[\\%_]/g, '\\$&')).join('%')}%`
}
