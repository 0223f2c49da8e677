// Does building the listing's JSON inside PostgreSQL pay? Compares, for users with 20, 1 000 and
// 10 000 notes (the bench's seeded notes), in one fresh database (BenchDatabases, dropped at the end):
//   records: the notes read as rows, mapped to records (Store.listNotes) and encoded with
//            JSON.stringify: what the driver did before;
//   sql:     Store.listNotesJson, what it does now: one text value built by PostgreSQL
//            (string_agg of to_json per field, the same bytes; postgres/notes.ts).
// Each is timed in alternating rounds, 8 calls in flight (a loaded service; env IN_FLIGHT); the table gives the
// median wall time and this process's CPU per listing, and the ratio sql / records.
// Run: PGURL=postgres://postgres@127.0.0.1:5432/test node --import tsx bench/postgres-listing.ts
// Figures depend on the machine and its load: compare the two columns within one run only.
import type { Store } from '../src/store/types.js'
import { median } from './measure.js'
import { withBenchStore } from './postgres-seed.js'
import { makeNotes, makeUser } from './seed.js'

const ADMIN_URL = process.env.PGURL ?? 'postgres://postgres@127.0.0.1:5432/test'
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 8)
const ROUNDS = 5

interface Sample {
  wallMs: number
  cpuMs: number
}

async function sample(calls: number, op: () => Promise<Buffer>): Promise<Sample> {
  const cpu = process.cpuUsage()
  const started = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next++ < calls) await op()
    }),
  )
  const used = process.cpuUsage(cpu)
  return { wallMs: (performance.now() - started) / calls, cpuMs: (used.user + used.system) / 1000 / calls }
}


async function compareFor(store: Store, size: number): Promise<string> {
  const user = makeUser(`listing-${size}`)
  await store.createUser(user)
  await store.importNotes([...makeNotes(user._id, size)])
  const records = async () => Buffer.from(JSON.stringify(await store.listNotes(user._id)))
  const sql = () => store.listNotesJson(user._id)
  if (!(await records()).equals(await sql())) throw new Error(`${size} notes: the two listings differ`)
  const calls = Math.max(10, Math.round(20_000 / size))
  const runs: Record<'records' | 'sql', Sample[]> = { records: [], sql: [] }
  for (let round = 0; round < ROUNDS; round++) {
    runs.records.push(await sample(calls, records))
    runs.sql.push(await sample(calls, sql))
  }
  const wall = (k: 'records' | 'sql') => median(runs[k].map((s) => s.wallMs))
  const cpu = (k: 'records' | 'sql') => median(runs[k].map((s) => s.cpuMs))
  const f = (ms: number) => (ms < 1 ? ms.toFixed(3) : ms.toFixed(1))
  return `| ${size} | ${f(wall('records'))} | ${f(wall('sql'))} | ${(wall('sql') / wall('records')).toFixed(2)} | ${f(cpu('records'))} | ${f(cpu('sql'))} | ${(cpu('sql') / cpu('records')).toFixed(2)} |`
}

async function main(): Promise<void> {
  await withBenchStore(ADMIN_URL, 'listing', async (store) => {
    console.log('| notes | records wall ms | sql wall ms | ratio | records CPU ms | sql CPU ms | ratio |\n|---|---|---|---|---|---|---|')
    for (const size of [20, 1000, 10_000]) console.log(await compareFor(store, size))
  })
}

main().catch((err: unknown) => {
  process.stderr.write(`postgres-listing failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
