// Compares the two PostgreSQL clients we considered, `pg` and `postgres` (porsager), on the
// queries the store actually runs: insert a note, find one by (user, id), list one user's notes
// in list order. Each driver gets its own fresh database and a pool of POOL connections; the
// work is issued CONCURRENCY at a time. Run:
//   PGURL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/postgres-drivers.ts
// Figures depend on the machine and its load: compare the two drivers within one run only.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import postgres from 'postgres'
import { newId } from '../src/services/ids.js'

const ADMIN_URL = process.env.PGURL ?? 'postgres://postgres@127.0.0.1:5432/test'
const POOL = 10
const CONCURRENCY = 32
const USERS = 50
const NOTES_PER_USER = 40
const ROUNDS = 2000

const SCHEMA = `
  CREATE TABLE notes (id text COLLATE "C" PRIMARY KEY, user_id text COLLATE "C" NOT NULL,
    title text NOT NULL, content text NOT NULL, tags text[] NOT NULL, is_pinned boolean NOT NULL,
    created_on text COLLATE "C" NOT NULL, updated_on text NOT NULL);
  CREATE INDEX notes_by_user ON notes (user_id, is_pinned DESC, created_on DESC, id DESC);`
const INSERT = `INSERT INTO notes VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`
const FIND = `SELECT * FROM notes WHERE user_id = $1 AND id = $2`
const LIST = `SELECT * FROM notes WHERE user_id = $1 ORDER BY is_pinned DESC, created_on DESC, id DESC`

type Run = (sql: string, params: unknown[]) => Promise<unknown>

async function withDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const name = `notes_bench_${randomBytes(4).toString('hex')}`
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  try {
    const url = new URL(ADMIN_URL)
    url.pathname = `/${name}`
    return await fn(url.toString())
  } finally {
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`)
    await admin.end()
  }
}

async function timed(label: string, total: number, op: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0
  const started = process.hrtime.bigint()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) await op(next++)
    }),
  )
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  console.log(`  ${label.padEnd(8)} ${Math.round((total / ms) * 1000).toString().padStart(6)} ops/s`)
}

async function workload(run: Run): Promise<void> {
  await run(SCHEMA.split(';')[0]!, [])
  await run(SCHEMA.split(';')[1]!, [])
  const users = Array.from({ length: USERS }, () => newId())
  const notes: Array<[string, string]> = []
  let t = Date.parse('2026-01-01T00:00:00Z')
  await timed('insert', USERS * NOTES_PER_USER, async (i) => {
    const user = users[i % USERS]!
    const id = newId()
    notes.push([user, id])
    const at = new Date((t += 1000)).toISOString()
    await run(INSERT, [id, user, `title ${i}`, 'some content '.repeat(20), ['a', 'b'], i % 7 === 0, at, at])
  })
  await timed('find', ROUNDS * 2, (i) => run(FIND, notes[i % notes.length]!))
  await timed('list', ROUNDS, (i) => run(LIST, [users[i % USERS]!]))
}

async function main(): Promise<void> {
  console.log(`pool ${POOL}, ${CONCURRENCY} in flight, ${USERS} users x ${NOTES_PER_USER} notes`)
  for (const round of [1, 2]) {
    await withDatabase(async (url) => {
      console.log(`pg (node-postgres), round ${round}`)
      const pool = new pg.Pool({ connectionString: url, max: POOL })
      pool.on('error', () => {}) // idle clients ended by DROP DATABASE below
      await workload(async (sql, params) => {
        await pool.query(sql, params)
      })
      await pool.end()
    })
    await withDatabase(async (url) => {
      console.log(`postgres (porsager), round ${round}`)
      const sql = postgres(url, { max: POOL, onnotice: () => {} })
      await workload(async (text, params) => {
        await sql.unsafe(text, params as never[], { prepare: true })
      })
      await sql.end()
    })
  }
}

await main()
