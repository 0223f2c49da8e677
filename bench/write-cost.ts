// What a note write costs the database alone, schema by schema (no service): the profile behind
// docs/performance.md, "Change feed". Each schema is the migrations up to a number, optionally with
// the search index's triggers dropped, so the feed's and the index's shares show apart.
// - SQLite: CPU µs of this process per add-note INSERT and per edit-note UPDATE (the driver's
//   statements), 16 to a transaction as the group commit makes them, WAL and synchronous=FULL,
//   on a fresh file per run; the schemas alternate, ROUNDS times.
// - PostgreSQL (--store postgresql): the median EXPLAIN ANALYZE execution time per statement, and
//   per trigger, of COUNT adds and COUNT edits on one connection, each schema in a database of its
//   own (made on DATABASE_URL's server, dropped after).
// Run: node --import tsx bench/write-cost.ts [--store sqlite|postgresql]   (env ROUNDS=5, COUNT=8000 / 500)
import { rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { newId } from '../src/services/ids.js'
import { migratePostgres } from '../src/store/postgres/index.js'
import { migrations as postgresMigrations } from '../src/store/postgres/migrations.js'
import { migrateSqlite } from '../src/store/sqlite/index.js'
import { migrations as sqliteMigrations } from '../src/store/sqlite/migrations.js'
import { NOTE_COLUMNS, NOTE_INSERT } from '../src/store/sqlite/rows.js'

const SEARCH_TRIGGERS = ['note_text_added', 'note_text_changed']
/** Name, last migration, and whether the search index's triggers stay (SQLite's index is a migration; PostgreSQL's is built by the service). */
const SCHEMAS: Array<[string, number, boolean]> = [
  ['before the feed (14)', 14, true],
  ['feed of 15, index of 16', 16, true],
  ['feed of 17, index of 16', 17, true],
  ['feed of 15, no index triggers', 16, false],
  ['feed of 17, no index triggers', 17, false],
]
const USER = `INSERT INTO users (id, full_name, email, email_key, password_hash, created_on) VALUES ('u', 'u', 'e', 'e', 'h', '2026-01-01')`
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? NaN

function sqliteRun(upTo: number, withIndex: boolean, count: number): [number, number] {
  const file = join(tmpdir(), `write-cost-${process.pid}.db`)
  const remove = () => ['', '-wal', '-shm'].forEach((end) => rmSync(file + end, { force: true }))
  remove()
  const db = new Database(file)
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')
    db.pragma('foreign_keys = ON')
    migrateSqlite(db, sqliteMigrations.filter((m) => m.version <= upTo))
    if (!withIndex) for (const t of SEARCH_TRIGGERS) db.exec(`DROP TRIGGER ${t}`)
    db.exec(USER)
    const insert = db.prepare(`INSERT INTO notes ${NOTE_INSERT}`)
    const update = db.prepare(`UPDATE notes SET title = @title, content = @content, updated_on = @now WHERE user_id = 'u' AND id = @id RETURNING ${NOTE_COLUMNS}`)
    const now = new Date().toISOString()
    const add = () => insert.run({ _id: newId(), userId: 'u', title: 'Bench note', content: 'Written durably.', tags: '["bench"]', isPinned: 0, createdOn: now, updatedOn: now })
    const id = newId()
    insert.run({ _id: id, userId: 'u', title: 'first', content: 'to edit', tags: '[]', isPinned: 0, createdOn: now, updatedOn: now })
    const edit = (i: number) => update.get({ id, title: `Edited title ${i % 2}`, content: `Edited content ${i % 2}`, now })
    const timed = (write: (i: number) => unknown) => {
      const batch = db.transaction(() => {
        for (let i = 0; i < 16; i++) write(i)
      })
      const before = process.cpuUsage()
      for (let k = 0; k < count / 16; k++) batch()
      const used = process.cpuUsage(before)
      return (used.user + used.system) / count
    }
    return [timed(add), timed(edit)]
  } finally {
    db.close()
    remove()
  }
}

async function postgresRun(adminUrl: string, upTo: number, count: number): Promise<Record<string, number>> {
  const name = `write_cost_${process.pid}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin.query(`CREATE DATABASE ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const client = new pg.Client({ connectionString: url.toString() })
  await client.connect()
  const times: Record<string, number[]> = {}
  try {
    await migratePostgres(client, postgresMigrations.filter((m) => m.version <= upTo))
    await client.query(USER)
    await client.query(`INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on) VALUES ('n0', 'u', 'first', 'to edit', '{}', false, '2026', '2026')`)
    for (let i = 0; i < count; i++) {
      const statements = {
        add: `INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on) VALUES ('${newId()}', 'u', 'Bench note', 'Written durably.', '{bench}', false, '2026', '2026')`,
        edit: `UPDATE notes SET title = 'Edited title ${i % 2}', content = 'Edited content ${i % 2}' WHERE user_id = 'u' AND id = 'n0'`,
      }
      for (const [kind, sql] of Object.entries(statements)) {
        const { rows } = await client.query<{ 'QUERY PLAN': Array<{ 'Execution Time': number; Triggers?: Array<{ 'Trigger Name': string; Time: number }> }> }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`)
        const plan = rows[0]!['QUERY PLAN'][0]!
        ;(times[`${kind} total`] ??= []).push(plan['Execution Time'])
        for (const t of plan.Triggers ?? []) if (!t['Trigger Name'].startsWith('RI_')) (times[`${kind} ${t['Trigger Name']}`] ??= []).push(t.Time)
      }
    }
  } finally {
    await client.end()
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  }
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]))
}

async function main(): Promise<void> {
  const store = process.argv.includes('postgresql') ? 'postgresql' : 'sqlite'
  if (store === 'sqlite') {
    const rounds = Number(process.env.ROUNDS ?? 5)
    const count = Number(process.env.COUNT ?? 8000)
    const runs = new Map<string, Array<[number, number]>>()
    for (let r = 0; r < rounds; r++) {
      for (const [name, upTo, withIndex] of SCHEMAS) runs.set(name, [...(runs.get(name) ?? []), sqliteRun(upTo, withIndex, count)])
    }
    console.log(`SQLite, CPU µs per write, median of ${rounds} alternating runs of ${count}\n\n| schema | add-note | edit-note |\n|---|---|---|`)
    for (const [name, r] of runs) console.log(`| ${name} | ${median(r.map((x) => x[0])).toFixed(1)} | ${median(r.map((x) => x[1])).toFixed(1)} |`)
    return
  }
  const adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const count = Number(process.env.COUNT ?? 500)
  console.log(`PostgreSQL, median EXPLAIN ANALYZE ms of ${count} adds and ${count} edits\n`)
  for (const [name, upTo, withIndex] of SCHEMAS) {
    if (!withIndex) continue
    const figures = await postgresRun(adminUrl, upTo, count)
    console.log(`${name}: ${Object.entries(figures).map(([k, v]) => `${k} ${v.toFixed(3)}`).join(', ')}`)
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`write-cost failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
