// What one listing version query (src/store/postgres/note-versions.ts) costs the service's process
// on its own: COUNT queries sent one at a time over one connection, with `pg` (as the store sends
// it: a named statement through a pool, on a connection made by createVersionPool) and with
// `postgres` (porsager), alternating, two rounds each. Reports this process's CPU (user +
// system) and the wall time per query. PostgreSQL runs on the same cores, so the CPU is the
// service's share of the round trip: what a batch of shared requests divides between them
// (README, "What the profiles showed").
// Run: npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node dist/bench/version-query-cost.js
//      (env COUNT=20000)
import postgres from 'postgres'
import { createVersionPool, migrateDatabase } from '../src/store/postgres/index.js'
import { NOTE_VERSION } from '../src/store/postgres/note-versions.js'
import { BenchDatabases } from './postgres-seed.js'

const TEXT = `SELECT user_id, ${NOTE_VERSION} AS version FROM note_versions WHERE user_id = ANY($1::text[]) GROUP BY user_id`

async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL
  if (!adminUrl) throw new Error('set DATABASE_URL (an admin connection, as for the bench)')
  const count = Number(process.env.COUNT ?? 20_000)
  const databases = new BenchDatabases(adminUrl)
  const url = await databases.create('version-query-cost')
  await migrateDatabase({ url })
  const pool = createVersionPool({ url })
  const sql = postgres(url, { max: 1, onnotice: () => {}, connection: { plan_cache_mode: 'force_generic_plan' } })
  try {
    const userId = 'u'.repeat(24)
    await pool.query(`INSERT INTO users VALUES ($1, 'V', 'v@bench.example', 'v@bench.example', 'hash', '2026-01-01T00:00:00.000Z')`, [userId])
    await pool.query(`INSERT INTO note_versions VALUES ($1, 0, 1), ($1, 1, 2)`, [userId])
    const drivers: Array<[string, () => Promise<unknown>]> = [
      ['pg (as the store)', () => pool.query({ name: 'notes.versions', text: TEXT, values: [[userId]] })],
      ['postgres', () => sql.unsafe(TEXT, [[userId]], { prepare: true })],
    ]
    console.log(`| driver | round | process CPU µs per query | wall µs per query |\n|---|---|---|---|`)
    for (let round = 1; round <= 2; round++) {
      for (const [name, run] of drivers) {
        for (let i = 0; i < 100; i++) await run() // warm-up
        const cpu = process.cpuUsage()
        const start = performance.now()
        for (let i = 0; i < count; i++) await run()
        const used = process.cpuUsage(cpu)
        const wall = performance.now() - start
        console.log(`| ${name} | ${round} | ${((used.user + used.system) / count).toFixed(1)} | ${((wall * 1000) / count).toFixed(1)} |`)
      }
    }
  } finally {
    await pool.end()
    await sql.end()
    await databases.dropAll()
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`version-query-cost failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
