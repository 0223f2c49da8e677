// The search section of the PostgreSQL driver (mirrors sqlite/search.ts; store/search.ts; docs/search.md): the candidates' ids in list order, narrowed by
// the plan's LIKE conditions on the folded text, which pg_trgm's GIN index answers when it exists (PostgreSQL scans
// with the same conditions when it does not); then their text and JSON a chunk at a time (search-chunks.ts).
import pg from 'pg'
import { NOTE_LIST_ORDER as LIST_ORDER } from '../list-order.js'
import type { SearchIndexBuilt, SearchStore, TextMatcher } from '../search.js'
import { type Candidate, searchChunks } from '../search-chunks.js'
import { FOLDS_ASCII, NOTE_TEXT_FOLDED, likeCondition } from '../search-trigrams.js'
import { type PostgresOptions, ownClient } from './pool.js'
import { type Query, mapped } from './query.js'
import { decodeJsonText, decodeText } from './rows.js'

/** Named for NOTE_TEXT_FOLDED as it is: an index of another expression is never used, so a new one needs a new name. */
export const SEARCH_INDEX = 'notes_text_trigrams'

type ChunkRow = Record<'id' | 'title' | 'content' | 'json', string>

class PostgresSearch {
  constructor(
    private readonly pool: pg.Pool,
    private readonly query: Query,
  ) {}

  async search(userId: string, matcher: TextMatcher): Promise<string> {
    // Where lower() folds ASCII otherwise than RE2 (FOLDS_ASCII, a constant the planner folds), no note is left out.
    const narrowed = matcher.plan ? ` AND (NOT ${FOLDS_ASCII} OR ${likeCondition(matcher.plan, pg.escapeLiteral)})` : ''
    // One round trip, ended by PostgreSQL when the search's budget runs out (SET LOCAL holds for the implicit transaction of
    // the two statements). Literals rather than parameters: planned with the plan's own patterns, as a rare or a common literal.
    let rows: Array<{ id: string }>
    try {
      const results = (await this.pool.query(
        `SET LOCAL statement_timeout = ${Math.ceil(matcher.timeLeft())}; SELECT id FROM notes WHERE user_id = ${pg.escapeLiteral(userId)}${narrowed} ${LIST_ORDER}`,
      )) as unknown as [unknown, pg.QueryResult<{ id: string }>]
      rows = results[1].rows
    } catch (err) {
      if ((err as { code?: unknown }).code === '57014') matcher.outOfTime() // ended by its statement_timeout
      throw mapped(err)
    }
    const readChunk = async (ids: string[]) => {
      const chunk = await this.query<ChunkRow>(
        'search.chunk',
        'SELECT id, title, content, json FROM notes WHERE user_id = $1 AND id = ANY($2::text[])',
        [userId, ids],
      )
      return new Map(
        chunk.rows.map((r): [string, Candidate] => [
          r.id,
          { title: decodeText(r.title), content: decodeText(r.content), json: decodeJsonText(r.json) },
        ]),
      )
    }
    return searchChunks(
      rows.map((r) => r.id),
      readChunk,
      matcher,
    )
  }
}

/**
 * Creates pg_trgm and the index (docs/search.md, "Building the index") on a connection of its own, without a statement
 * timeout, one instance at a time (an advisory lock keyed by the migration's number). CONCURRENTLY lets writes go on;
 * a build stopped half-way leaves an invalid index, dropped and built again.
 */
async function buildSearchIndex(
  client: pg.Client,
  query: Query,
  progress: (fraction: number) => void,
): Promise<SearchIndexBuilt> {
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm')
  } catch (err) {
    return { unavailable: `the pg_trgm extension cannot be created (${(err as Error).message})` }
  }
  if (!(await client.query<{ ok: boolean }>(`SELECT ${FOLDS_ASCII} AS ok`)).rows[0]?.ok) {
    return {
      unavailable: "the database's collation lower-cases ASCII letters otherwise than search does (a Turkish locale?)",
    }
  }
  const valid = async () =>
    (
      await client.query<{ indisvalid: boolean }>(
        'SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($1)',
        [SEARCH_INDEX],
      )
    ).rows[0]?.indisvalid
  if ((await valid()) === true) return 'ready'
  if (!(await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(16, 0) AS locked')).rows[0]?.locked)
    return 'elsewhere'
  if ((await valid()) === true) return 'ready'
  await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${SEARCH_INDEX}`)
  const timer = setInterval(() => {
    const done = `coalesce(tuples_done::float8 / nullif(tuples_total, 0), blocks_done::float8 / nullif(blocks_total, 0))`
    const sql = `SELECT ${done} AS done FROM pg_stat_progress_create_index WHERE index_relid = to_regclass($1)`
    query<{ done: number | null }>('', sql, [SEARCH_INDEX]).then(
      ({ rows }) => rows[0]?.done != null && progress(rows[0].done),
      () => {},
    )
  }, 5000)
  try {
    await client.query(
      `CREATE INDEX CONCURRENTLY ${SEARCH_INDEX} ON notes USING gin ((${NOTE_TEXT_FOLDED}) gin_trgm_ops)`,
    )
  } finally {
    clearInterval(timer)
  }
  return 'built'
}

/** The section, and what ends an index build under way when the store closes. */
export function postgresSearch(
  options: PostgresOptions,
  pool: pg.Pool,
  query: Query,
): SearchStore & { stopBuilding: () => void } {
  const search = new PostgresSearch(pool, query)
  let building: pg.Client | undefined
  let stopped = false
  return {
    searchNotesJson: (userId, matcher) => search.search(userId, matcher),
    buildSearchIndex: async (progress) => {
      // Its own connection: the build has no statement timeout, and close() ends it (the next start builds again).
      if (stopped) throw new Error('the store is closed')
      const client = ownClient(options, 'notes-service')
      building = client
      try {
        await client.connect()
        return await buildSearchIndex(client, query, progress)
      } finally {
        building = undefined
        await client.end().catch(() => {})
      }
    },
    // The build's socket is cut, not ended: end() waits for the statement, and CREATE INDEX CONCURRENTLY may wait for
    // other transactions for long. PostgreSQL leaves an invalid index, which the next start builds again.
    stopBuilding: () => {
      stopped = true
      ;(
        building as unknown as { connection?: { stream?: { destroy(): void } } } | undefined
      )?.connection?.stream?.destroy()
    },
  }
}
