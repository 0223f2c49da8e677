// The search benchmark's measurements (run.ts): requests one at a time over one kept-alive
// connection, timed to the answer's last byte; the search index's build as the service makes it
// at start (docs/search.md, "Building the index"): on SQLite the seeded index is emptied first,
// so that the service builds it from the notes as it would after migration 16, on PostgreSQL the
// service builds it after seeding anyway, and a build without the index (an earlier release) is
// ready at once; and what the store occupies on disk.
import { statSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { SQLITE_FILE } from '../../src/store/sqlite/index.js'

export interface Timed {
  /** Requests measured (warm-up excluded). */
  requests: number
  /** Milliseconds of every timed answer, whatever its status (a 400 took its time budget too). */
  p50: number
  p99: number
  /** p50 of the 200 answers alone; NaN when there was none. */
  okP50: number
  /** Notes in a 200 answer; undefined when every answer was a 400. */
  results: number | undefined
  /** Bytes of that answer's body. */
  answerBytes: number | undefined
  /** 400 answers: a search past its time budget (counted, not an error). */
  overBudget: number
  /** Any other status, by status. */
  other: Record<string, number>
}

/** Nearest rank over sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number
}

/** GETs over one kept-alive connection; the body is kept only when asked for (parsing costs this process time). */
export class SerialClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 })
  constructor(
    private readonly url: string,
    private readonly authorization: string,
  ) {}

  get(path: string, keepBody = false): Promise<{ status: number; ms: number; body?: Buffer }> {
    const began = performance.now()
    return new Promise((resolve, reject) => {
      const req = request(
        new URL(path, this.url),
        { headers: { authorization: this.authorization }, agent: this.agent },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => {
            if (keepBody) chunks.push(chunk)
          })
          res.once('end', () => {
            const ms = performance.now() - began
            resolve({ status: res.statusCode ?? 0, ms, ...(keepBody ? { body: Buffer.concat(chunks) } : {}) })
          })
          res.once('error', reject)
        },
      )
      req.setTimeout(60_000, () => req.destroy(new Error(`GET ${path}: no answer within 60 s`)))
      req.once('error', reject)
      req.end()
    })
  }

  close(): void {
    this.agent.destroy()
  }
}

/**
 * `warmup` unrecorded requests, then `count` timed ones. The result count is read from the first
 * 200, timed or not: a body is kept until then (its time is taken before it is parsed).
 */
export async function timeSerial(client: SerialClient, path: string, warmup: number, count: number): Promise<Timed> {
  let results: number | undefined
  let answerBytes: number | undefined
  const get = async () => {
    const answer = await client.get(path, results === undefined)
    if (answer.status === 200 && answer.body) {
      results = (JSON.parse(answer.body.toString('utf8')) as { notes: unknown[] }).notes.length
      answerBytes = answer.body.length
    }
    return answer
  }
  for (let i = 0; i < warmup || (results === undefined && i < warmup + 3); i++) await get()
  const times: number[] = []
  const okTimes: number[] = []
  const timed: Timed = {
    requests: count,
    p50: NaN,
    p99: NaN,
    okP50: NaN,
    results: undefined,
    answerBytes: undefined,
    overBudget: 0,
    other: {},
  }
  for (let i = 0; i < count; i++) {
    const answer = await get()
    times.push(answer.ms)
    if (answer.status === 200) okTimes.push(answer.ms)
    else if (answer.status === 400) timed.overBudget++
    else timed.other[answer.status] = (timed.other[answer.status] ?? 0) + 1
  }
  times.sort((a, b) => a - b)
  okTimes.sort((a, b) => a - b)
  return {
    ...timed,
    results,
    answerBytes,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    okP50: percentile(okTimes, 50),
  }
}

/** One table or index of the store and the bytes it occupies. */
export interface Relation {
  name: string
  kind: string
  /** The table an index (or TOAST table) belongs to; a table's own name. */
  table: string
  bytes: number
}

export interface StoreSize {
  /** The database file (SQLite) or pg_database_size (PostgreSQL). */
  totalBytes: number
  /** SQLite's write-ahead log beside the file, if any is left. */
  walBytes?: number
  relations: Relation[]
}

/** Every table and index in the SQLite file (its dbstat table), largest first. */
export function sqliteSize(dataDir: string): StoreSize {
  const file = join(dataDir, SQLITE_FILE)
  const wal = (() => {
    try {
      return statSync(`${file}-wal`).size
    } catch {
      return 0
    }
  })()
  const db = new Database(file, { readonly: true })
  try {
    const relations = db
      .prepare(
        `SELECT s.name AS name, COALESCE(m.type, 'internal') AS kind, COALESCE(m.tbl_name, s.name) AS tbl, SUM(s.pgsize) AS bytes
       FROM dbstat AS s LEFT JOIN sqlite_schema AS m ON m.name = s.name
       GROUP BY s.name ORDER BY bytes DESC`,
      )
      .all() as Array<{ name: string; kind: string; tbl: string; bytes: number }>
    return {
      totalBytes: statSync(file).size,
      walBytes: wal,
      relations: relations.map((r) => ({ name: r.name, kind: r.kind, table: r.tbl, bytes: r.bytes })),
    }
  } finally {
    db.close()
  }
}

// Every table, TOAST table, materialized view and index outside the system catalogs; an index
// (also a TOAST table's) is listed under the table it serves.
const PG_RELATIONS = `
  SELECT c.relname AS name,
         CASE c.relkind WHEN 'r' THEN 'table' WHEN 'i' THEN 'index' WHEN 't' THEN 'toast' WHEN 'm' THEN 'materialized view' ELSE c.relkind::text END AS kind,
         COALESCE(owner.relname, base.relname) AS tbl,
         pg_relation_size(c.oid)::float8 AS bytes
  FROM pg_class c
  LEFT JOIN pg_index i ON i.indexrelid = c.oid
  JOIN pg_class base ON base.oid = COALESCE(i.indrelid, c.oid)
  LEFT JOIN pg_class owner ON owner.reltoastrelid = base.oid
  JOIN pg_namespace n ON n.oid = COALESCE(owner.relnamespace, base.relnamespace)
  WHERE c.relkind IN ('r', 'i', 't', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  ORDER BY bytes DESC, name`

/** pg_database_size and every relation of the database (pg_relation_size), largest first. */
export async function postgresSize(url: string): Promise<StoreSize> {
  const client = new pg.Client({ connectionString: url, application_name: 'notes-service bench sizes' })
  client.on('error', () => {})
  await client.connect()
  try {
    const total = await client.query<{ bytes: number }>('SELECT pg_database_size(current_database())::float8 AS bytes')
    const { rows } = await client.query<{ name: string; kind: string; tbl: string; bytes: number }>(PG_RELATIONS)
    return {
      totalBytes: total.rows[0]?.bytes ?? NaN,
      relations: rows.map((r) => ({ name: r.name, kind: r.kind, table: r.tbl, bytes: r.bytes })),
    }
  } finally {
    await client.end().catch(() => {})
  }
}

// The search index's build

const POLL_MS = 200

/** Empties SQLite's search index so that the next start builds it; false when this database has none. */
export function emptySqliteIndex(dataDir: string): boolean {
  const db = new Database(join(dataDir, SQLITE_FILE))
  try {
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'note_text_build'").get()) return false
    db.exec(
      "INSERT INTO note_text (note_text) VALUES ('delete-all'); DELETE FROM note_text_build; INSERT INTO note_text_build VALUES (0)",
    )
    return true
  } finally {
    db.close()
  }
}

/** Seconds from now until the index is complete; undefined when the database gets none within `graceMs`. */
export async function awaitSearchIndex(
  dataDir: string,
  databaseUrl: string | undefined,
  graceMs = 3000,
): Promise<number | undefined> {
  const began = performance.now()
  const ready = databaseUrl ? postgresReady(databaseUrl) : sqliteReady(dataDir)
  try {
    for (;;) {
      const state = await ready.state()
      if (state === 'ready') return (performance.now() - began) / 1000
      if (state === 'none' && performance.now() - began > graceMs) return undefined
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    }
  } finally {
    await ready.close()
  }
}

type IndexState = 'ready' | 'building' | 'none'

function sqliteReady(dataDir: string) {
  const db = new Database(join(dataDir, SQLITE_FILE), { readonly: true })
  return {
    state: async (): Promise<IndexState> => {
      if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'note_text_build'").get()) return 'none'
      return db.prepare('SELECT 1 FROM note_text_build').get() ? 'building' : 'ready'
    },
    close: async () => db.close(),
  }
}

function postgresReady(url: string) {
  const client = new pg.Client({ connectionString: url })
  const connected = client.connect()
  return {
    state: async (): Promise<IndexState> => {
      await connected
      const { rows } = await client.query<{ indisvalid: boolean | null }>(
        "SELECT (SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass('notes_text_trigrams')) AS indisvalid",
      )
      const valid = rows[0]?.indisvalid
      return valid === true ? 'ready' : valid === false ? 'building' : 'none'
    },
    close: () => client.end(),
  }
}
