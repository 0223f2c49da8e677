// The search section of the SQLite driver (mirrors postgres/search.ts; store/search.ts; docs/search.md): the candidates' rowids in list order from the
// trigram index (note_text, migration 16) or, without a plan or while the index is built, from every note of the
// account; then their text and JSON a chunk at a time (search-chunks.ts).
import type { Database, Statement } from 'better-sqlite3'
import { NOTE_LIST_ORDER as LIST_ORDER } from '../list-order.js'
import type { SearchIndexBuilt, SearchStore, TextMatcher } from '../search.js'
import { type Candidate, searchChunks } from '../search-chunks.js'
import { ftsQuery } from '../search-trigrams.js'
import type { Writes } from './group-commit.js'

/** Notes indexed per write transaction while the index is built: a short step for the writer. */
export const BUILD_BATCH = 1000

type ChunkRow = Candidate & { rowid: number }

/** The search's statements. */
class SqliteSearch {
  private readonly everyNote: Statement<[string], number>
  private readonly indexed: Statement<[string, string], number>
  private readonly chunk: Statement<[string, string], ChunkRow>
  private readonly building: Statement<[], number>
  private readonly batch: Statement<[number], { rowid: number; title: string; content: string }>
  private readonly index: Statement<[number, string, string]>
  constructor(private readonly db: Database) {
    this.everyNote = db.prepare<[string], number>(`SELECT rowid FROM notes WHERE user_id = ? ${LIST_ORDER}`).pluck()
    // From the index to the notes (CROSS JOIN keeps that order): the work follows the notes the index names, not the
    // account's size. An account of few notes in a database where the literal is common is the slow case.
    this.indexed = db
      .prepare<[string, string], number>(
        `SELECT notes.rowid FROM note_text CROSS JOIN notes ON notes.rowid = note_text.rowid
         WHERE note_text MATCH ? AND notes.user_id = ? ${LIST_ORDER}`,
      )
      .pluck()
    // By rowid (CROSS JOIN keeps that order: SQLite would rather read the account's notes by user_id). user_id again:
    // a rowid freed by a delete since the candidates were listed may hold another account's note.
    this.chunk = db.prepare(
      `SELECT n.rowid, n.title, n.content, n.json FROM json_each(?) AS k CROSS JOIN notes n ON n.rowid = k.value WHERE n.user_id = ?`,
    )
    this.building = db.prepare<[], number>('SELECT through FROM note_text_build').pluck()
    this.batch = db.prepare(
      `SELECT rowid, title, content FROM notes WHERE rowid > ? ORDER BY rowid LIMIT ${BUILD_BATCH}`,
    )
    this.index = db.prepare('INSERT INTO note_text (rowid, title, content) VALUES (?, ?, ?)')
  }

  search(userId: string, matcher: TextMatcher): Promise<string> {
    const plan = this.building.get() === undefined ? matcher.plan : undefined
    const rowids = plan ? this.indexed.all(ftsQuery(plan), userId) : this.everyNote.all(userId)
    const readChunk = (keys: number[]) =>
      new Map(this.chunk.all(JSON.stringify(keys), userId).map((row) => [row.rowid, row]))
    return searchChunks(rowids, readChunk, matcher)
  }

  /** Indexes the notes that existed before the index, a batch per write transaction; resumes where a stopped build ended. */
  async build(writes: Writes, progress: (fraction: number) => void): Promise<SearchIndexBuilt> {
    if (this.building.get() === undefined) return 'ready'
    const last = this.db.prepare<[], number | null>('SELECT max(rowid) FROM notes').pluck()
    for (;;) {
      const through = await writes.write(() => this.indexBatch())
      if (through === undefined) return 'built'
      progress(Math.min(1, through / Math.max(1, last.get() ?? 1)))
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  /** One batch after note_text_build's rowid; the rowid now reached, or undefined once every note is indexed. */
  private indexBatch(): number | undefined {
    const through = this.building.get()
    if (through === undefined) return undefined
    const rows = this.batch.all(through)
    for (const row of rows) this.index.run(row.rowid, row.title, row.content)
    if (rows.length < BUILD_BATCH) {
      this.db.prepare('DELETE FROM note_text_build').run()
      return undefined
    }
    const reached = rows[rows.length - 1]!.rowid
    this.db.prepare('UPDATE note_text_build SET through = ?').run(reached)
    return reached
  }
}

export function sqliteSearch(db: Database, writes: Writes): SearchStore {
  const search = new SqliteSearch(db)
  return {
    searchNotesJson: (userId, matcher) => search.search(userId, matcher),
    buildSearchIndex: (progress) => search.build(writes, progress),
  }
}
