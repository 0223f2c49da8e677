// What checking the caller's session inside a note write would cost: add-note's INSERT as the
// driver makes it today against the same INSERT carrying the check account writes make (is the
// request's session still there?), on each store, in alternating rounds (each round's order
// rotates: A B, B A, …, so the machine's drift falls on every variant alike), straight against
// the store (no HTTP, no service): the difference is the check's whole cost.
// - SQLite: the driver's own code (SqliteNotes.insert, and accounts.ts actorCheck's
//   `SELECT 1 FROM sessions WHERE id = ? AND user_id = ?` first, as updateUser runs it) through
//   the driver's group-commit writer, synchronous=FULL, in a temporary directory.
// - PostgreSQL: the driver's postgresNotes insertNote against one statement carrying the check:
//   `session`, an EXISTS over the session row FOR KEY SHARE (a revoker's DELETE of the row waits
//   for the note's commit; a row deleted by a committed revoker is not found); `account+session`,
//   the users row locked first (FOR KEY SHARE OF u, s: the OF list's order is the lock order),
//   which delete-account (users FOR UPDATE, then sessions by cascade) needs to avoid a deadlock
//   with the insert's foreign-key check. In a database of its own, dropped at the end.
// Writers: `concurrency` callers each awaiting one write after another (SQLite: 32 writes queued
// per turn of the group-commit writer, or one at a time; PostgreSQL: from a pool of 10).
// CPU µs/write: SQLite, this process (SQLite runs in it); PostgreSQL, the pool's server
// processes (/proc/PID/stat, so the server must be on this machine; `–` otherwise).
// Run: node --import tsx bench/session-check-cost.ts [--store sqlite|postgresql]
//      (or npm run build:bench && node dist-bench/bench/session-check-cost.js)
//      env ROUNDS=6, ROUND_SECONDS=2, DATABASE_URL (admin connection; default
//      postgres://postgres@127.0.0.1:5432/test)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { newId } from '../src/services/ids.js'
import { createPostgresPool, migrateDatabase } from '../src/store/postgres/index.js'
import { postgresNotes } from '../src/store/postgres/notes.js'
import { queryOver } from '../src/store/postgres/query.js'
import { encodeText } from '../src/store/postgres/rows.js'
import { migrateSqlite, openSqliteDatabase, sqliteGroupCommit } from '../src/store/sqlite/index.js'
import { SqliteNotes } from '../src/store/sqlite/notes.js'
import { actorCheck } from '../src/store/sqlite/accounts.js'
import { emptyInput } from '../src/note-shape.js'
import type { NoteRecord } from '../src/store/types.js'

const ROUNDS = Number(process.env.ROUNDS ?? 6)
const ROUND_MS = 1000 * Number(process.env.ROUND_SECONDS ?? 2)
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const USER = newId()
const SESSION = 'c0ffee'.padEnd(32, '0')
const NOW = new Date().toISOString()
let checkAlone = ''

interface Variant {
  name: string
  write: () => Promise<unknown>
}
/** CPU microseconds used so far by whatever does the store's work. */
type CpuClock = () => number
interface Tally {
  writes: number
  ms: number
  cpuUs: number
  /** writes/s and CPU µs/write of each round, in round order. */
  rates: number[]
  cpus: number[]
}

const note = (): NoteRecord => ({
  _id: newId(),
  ...emptyInput(),
  userId: USER,
  title: 'Bench note',
  content: 'Written durably.',
  tags: ['bench'],
  isPinned: false,
  createdOn: new Date().toISOString(),
  updatedOn: new Date().toISOString(),
})

/** `concurrency` callers, each awaiting one write after another, for `ms`. */
async function run(variant: Variant, concurrency: number, ms: number, cpu: CpuClock): Promise<Omit<Tally, 'rates' | 'cpus'>> {
  let writes = 0
  const cpu0 = cpu()
  const start = performance.now()
  const end = start + ms
  const caller = async () => {
    while (performance.now() < end) {
      await variant.write()
      writes++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, caller))
  return { writes, ms: performance.now() - start, cpuUs: cpu() - cpu0 }
}

async function compare(variants: Variant[], concurrency: number, cpu: CpuClock): Promise<Tally[]> {
  for (const v of variants) await run(v, concurrency, 500, cpu) // warm-up: statements prepared, caches filled
  const tallies: Tally[] = variants.map(() => ({ writes: 0, ms: 0, cpuUs: 0, rates: [], cpus: [] }))
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < variants.length; k++) {
      const i = (round + k) % variants.length
      const r = await run(variants[i]!, concurrency, ROUND_MS, cpu)
      const t = tallies[i]!
      t.writes += r.writes
      t.ms += r.ms
      t.cpuUs += r.cpuUs
      t.rates[round] = (1000 * r.writes) / r.ms
      t.cpus[round] = r.cpuUs / r.writes
    }
  }
  return tallies
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2
}
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

function rows(store: string, concurrency: number, variants: Variant[], tallies: Tally[], cpuKnown: boolean): string[] {
  const base = tallies[0]!
  const baseRate = (1000 * base.writes) / base.ms
  return tallies.map((t, i) => {
    const rate = (1000 * t.writes) / t.ms
    const cpu = cpuKnown ? fmt(t.cpuUs / t.writes, 1) : '–'
    // Each round beside the same round of today's insert (they ran one after the other).
    const ratios = t.rates.map((r, round) => r / base.rates[round]!)
    const ratio = i === 0 ? '1' : `**${fmt(rate / baseRate, 2)}** / ${fmt(median(ratios), 2)} (${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)})`
    const delta = median(t.cpus.map((c, round) => c - base.cpus[round]!))
    const cpuDelta = i === 0 || !cpuKnown ? '' : `${delta >= 0 ? '+' : ''}${fmt(delta, 1)}`
    return `| ${store} | ${concurrency} | ${variants[i]!.name} | ${fmt(rate)} | ${fmt(1e6 / rate, 1)} | ${cpu} | ${cpuDelta} | ${ratio} |`
  })
}

async function sqlite(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'session-check-'))
  const db = openSqliteDatabase({ dataDir: dir })
  try {
    migrateSqlite(db)
    db.prepare(`INSERT INTO users (id, full_name, email, email_key, password_hash, created_on) VALUES (?, 'Bench', 'b@example.com', 'b@example.com', 'x', ?)`).run(USER, NOW)
    db.prepare('INSERT INTO sessions (id, user_id, created_on, last_used_on, client) VALUES (?, ?, ?, ?, ?)').run(SESSION, USER, NOW, NOW, 'bench')
    const writer = sqliteGroupCommit(db)
    const notes = new SqliteNotes(db)
    const assertAdmitted = actorCheck(db)
    const actor = { sessionId: SESSION, issuedAt: NOW }
    const variants: Variant[] = [
      { name: 'insert (today)', write: () => writer.write(() => notes.insert(note())) },
      {
        name: 'session check + insert',
        write: () =>
          writer.write(() => {
            assertAdmitted(USER, actor) // throws SessionEndedError when the session is gone
            return notes.insert(note())
          }),
      },
    ]
    const cpu = () => {
      const u = process.cpuUsage()
      return u.user + u.system
    }
    const out: string[] = []
    for (const c of [32, 1]) out.push(...rows('SQLite', c, variants, await compare(variants, c, cpu), true))
    // The check alone, in one transaction as inside a write: its CPU, steadier than the rows above.
    const calls = 200_000
    const cpu0 = cpu()
    db.transaction(() => {
      for (let i = 0; i < calls; i++) assertAdmitted(USER, actor)
    })()
    checkAlone = `SQLite, the check alone (${fmt(calls)} calls in one transaction): ${fmt((cpu() - cpu0) / calls, 2)} µs of CPU each.`
    return out
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const INSERT_CHECKED = (check: string) =>
  `INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
   SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE EXISTS (${check})`
const SESSION_CHECK = 'SELECT 1 FROM sessions WHERE id = $9 AND user_id = $2 FOR KEY SHARE'
const ACCOUNT_SESSION_CHECK = `SELECT 1 FROM users u JOIN sessions s ON s.user_id = u.id
   WHERE u.id = $2 AND s.id = $9 FOR KEY SHARE OF u, s`

/** utime + stime of a process in µs, or NaN when /proc cannot tell (server elsewhere). */
function procCpuUs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100 // USER_HZ: 100 on Linux
  } catch {
    return Number.NaN
  }
}

async function postgres(): Promise<string[]> {
  const name = `notes_session_check_${process.pid}`
  const admin = new pg.Client({ connectionString: ADMIN_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(ADMIN_URL)
  url.pathname = `/${name}`
  // No idle timeout: the same 10 server processes serve every round, so their CPU can be read.
  const pool = createPostgresPool({ url: url.toString(), poolSize: 10 }, { idleTimeoutMillis: 0 })
  try {
    await migrateDatabase({ url: url.toString() })
    await pool.query(`INSERT INTO users (id, full_name, email, email_key, password_hash, created_on) VALUES ($1, 'Bench', 'b@example.com', 'b@example.com', 'x', $2)`, [USER, NOW])
    await pool.query('INSERT INTO sessions (id, user_id, created_on, last_used_on, client) VALUES ($1, $2, $3, $3, $4)', [SESSION, USER, NOW, 'bench'])
    const clients = await Promise.all(Array.from({ length: 10 }, () => pool.connect()))
    const pids = await Promise.all(clients.map(async (c) => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid))
    clients.forEach((c) => c.release())
    const cpu = () => pids.reduce((sum, pid) => sum + procCpuUs(pid), 0)
    const query = queryOver(pool)
    const notes = postgresNotes(query, pool)
    // The driver's parameters (notes.ts insertNote), and the session's id as $9.
    const checked = (label: string, check: string) => async () => {
      const n = note()
      const values = [n._id, n.userId, encodeText(n.title), encodeText(n.content), n.tags.map(encodeText), n.isPinned, n.createdOn, n.updatedOn, SESSION]
      const { rowCount } = await query(label, INSERT_CHECKED(check), values)
      if (rowCount !== 1) throw new Error(`${label}: the check refused a live session`)
    }
    const variants: Variant[] = [
      { name: 'insert (today)', write: () => notes.insertNote(note()) },
      { name: 'session check + insert', write: checked('bench.insertCheckedSession', SESSION_CHECK) },
      { name: 'account+session check + insert', write: checked('bench.insertCheckedAccountSession', ACCOUNT_SESSION_CHECK) },
    ]
    const cpuKnown = !Number.isNaN(cpu())
    const out: string[] = []
    for (const c of [32, 1]) out.push(...rows('PostgreSQL', c, variants, await compare(variants, c, cpu), cpuKnown))
    return out
  } finally {
    await pool.end()
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { store: { type: 'string' } } })
  const stores = values.store ? [values.store] : ['sqlite', 'postgresql']
  const out = ['| store | writers | variant | writes/s | µs/write (1/rate) | CPU µs/write | CPU Δ µs (median of rounds) | writes/s ratio to today: totals / median of rounds (range) |', '|---|---|---|---|---|---|---|---|']
  for (const store of stores) {
    if (store === 'sqlite') out.push(...(await sqlite()))
    else if (store === 'postgresql') out.push(...(await postgres()))
    else throw new Error(`--store: sqlite or postgresql, not ${store}`)
  }
  console.log(`${ROUNDS} alternating rounds of ${ROUND_MS / 1000} s per variant; ${new Date().toISOString()}\n`)
  console.log(out.join('\n'))
  if (checkAlone) console.log(`\n${checkAlone}`)
}

main().catch((err: unknown) => {
  process.stderr.write(`session-check-cost failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
