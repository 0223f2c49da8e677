// `npm run bench [-- --quick] [-- --cpu-prof DIR] [-- --out FILE] [-- --store sqlite|postgresql]`:
// benchmarks the built service against a bare node:http ceiling on SQLite, and on PostgreSQL when
// DATABASE_URL is set (each data set in a database of its own, dropped at the end).
// The full run writes its Markdown report to bench/results/report.md and prints it; --quick is
// a smoke check of one store (short runs, 50 000 other notes instead of 1 000 000) that writes
// nothing.
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, freemem, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { openSqliteDatabase } from '../src/store/sqlite/index.js'
import { startCeiling } from './processes.js'
import { type CommitRate, header, storeSection } from './report.js'
import { BenchDatabases, PostgresSeeder } from './postgres-seed.js'
import { SqliteSeeder } from './seed.js'
import { type Plan, type StoreSetup, benchStore } from './store-bench.js'

/**
 * The disk's own limit: single rows committed for `seconds` (at most `maxCommits`) in a scratch
 * database in `dir`, one transaction (and one fsync) each, with the service's settings (WAL,
 * synchronous=FULL), on the same file system as the service's database. Group commit is how the
 * service's add-note rate can exceed this figure.
 */
function singleRowCommitRate(dir: string, seconds: number, maxCommits = 100_000): CommitRate {
  const db = openSqliteDatabase({ dataDir: dir, synchronous: 'FULL' })
  try {
    db.exec('CREATE TABLE IF NOT EXISTS probe (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
    const insert = db.prepare('INSERT INTO probe (body) VALUES (?)')
    const body = 'x'.repeat(300) // about the size of a note row
    const start = performance.now()
    const until = start + seconds * 1000
    let commits = 0
    while (commits < maxCommits && performance.now() < until) {
      insert.run(body) // autocommit: its own transaction and fsync
      commits++
    }
    const elapsed = (performance.now() - start) / 1000
    return { commitsPerSecond: commits / elapsed, commits, seconds: elapsed }
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const FULL: Plan = {
  quick: false,
  timing: { warmup: 2, duration: 8, rounds: 2 },
  growthTiming: { warmup: 1, duration: 3 },
  growthSizes: [10, 100, 1000, 10_000],
  otherUsers: 10_000,
  notesPerOtherUser: 100,
}

const QUICK: Plan = {
  quick: true,
  timing: { warmup: 0.3, duration: 1 },
  growthTiming: { warmup: 0.2, duration: 0.5 },
  // Two sizes run the growth phase's code; all four would take a quarter of the smoke check's
  // 2 minutes on a slow machine.
  growthSizes: [10, 1000],
  otherUsers: 500,
  notesPerOtherUser: 100,
}

const DEFAULT_REPORT = fileURLToPath(new URL('../../bench/results/report.md', import.meta.url))

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      out: { type: 'string' },
      'cpu-prof': { type: 'string' },
      // Only this store (sqlite or postgresql); both by default (PostgreSQL needs DATABASE_URL).
      store: { type: 'string' },
      // KEY=VALUE for the service's environment, e.g. allocator settings
      'service-env': { type: 'string', multiple: true },
    },
  })
  const serviceEnv: Record<string, string> = {}
  for (const pair of values['service-env'] ?? []) {
    const at = pair.indexOf('=')
    if (at < 1) throw new Error(`--service-env wants KEY=VALUE, got "${pair}"`)
    serviceEnv[pair.slice(0, at)] = pair.slice(at + 1)
  }
  // The smoke check measures one store, SQLite unless --store says otherwise, so that it stays
  // under the 2 minutes a smoke check is allowed (both stores take about three).
  const only = values.store?.toLowerCase() ?? (values.quick ? 'sqlite' : undefined)
  if (values.quick && values.store === undefined && process.env.DATABASE_URL) {
    process.stderr.write('--quick measures SQLite only; add --store postgresql for a PostgreSQL smoke check\n')
  }
  if (only !== undefined && only !== 'sqlite' && only !== 'postgresql')
    throw new Error(`--store wants sqlite or postgresql, got "${values.store}"`)
  const databaseUrl = process.env.DATABASE_URL
  if (only === 'postgresql' && !databaseUrl)
    throw new Error('--store postgresql needs DATABASE_URL (the admin connection for the bench databases)')
  const databases = databaseUrl && only !== 'sqlite' ? new BenchDatabases(databaseUrl) : undefined
  const plan = values.quick ? QUICK : FULL
  const root = mkdtempSync(join(tmpdir(), 'notes-bench-'))
  const secret = randomBytes(32).toString('hex')
  let dirs = 0
  const dataDir = () => join(root, `data-${++dirs}`)
  const nodeArgs = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : []
  // On Ctrl-C or a kill the `finally` below never runs: drop the bench databases first.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`${signal}: dropping the bench databases\n`)
      // The children are killed on exit (processes.ts); then their data can go too.
      void (databases?.dropAll() ?? Promise.resolve()).finally(() => {
        process.once('exit', () => rmSync(root, { recursive: true, force: true }))
        process.exit(130)
      })
    })
  }
  const ceiling = await startCeiling()
  const floor = await startCeiling('fastify')
  const sections: string[] = []
  try {
    process.stderr.write('measuring the disk: single-row durable commits\n')
    const disk = singleRowCommitRate(join(root, 'disk'), values.quick ? 1 : 3)
    const stores: StoreSetup[] = []
    if (only !== 'postgresql')
      stores.push({ store: 'SQLite', dataDir, seeder: (dir) => new SqliteSeeder(dir), nodeArgs, env: serviceEnv })
    if (databases) {
      stores.push({
        store: 'PostgreSQL',
        dataDir,
        seeder: async (dir) => new PostgresSeeder(await databases.create(dir)),
        databaseUrl: (dir) => databases.urlOf(dir),
        settle: (dir) => databases.settle(dir),
        nodeArgs,
        env: serviceEnv,
      })
    }
    for (const setup of stores) {
      const result = await benchStore(setup, plan, ceiling, secret, floor)
      const about = setup.databaseUrl && databases ? await databases.describeServer() : undefined
      sections.push(storeSection(result, disk, plan, about))
    }
    const flags = [...(values.quick ? ['--quick'] : []), ...(only ? [`--store ${only}`] : [])]
    const machine = {
      date: new Date().toISOString(),
      nproc: cpus().length,
      cpu: cpus()[0]?.model.trim() ?? 'unknown CPU',
      node: process.version,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      command: `${databases ? 'DATABASE_URL=… ' : ''}npm run bench${flags.length > 0 ? ` -- ${flags.join(' ')}` : ''}`,
      serviceEnv: Object.entries(serviceEnv)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
    }
    const report = `${header(machine, plan, disk)}\n\n${sections.join('\n\n')}\n`
    process.stdout.write(`\n${report}`)
    const out = values.out ?? (values.quick ? undefined : DEFAULT_REPORT)
    if (out) {
      mkdirSync(join(out, '..'), { recursive: true })
      writeFileSync(out, report)
      process.stderr.write(`report written to ${out} (free memory now ${Math.round(freemem() / 2 ** 20)} MB)\n`)
    }
  } finally {
    await ceiling.stop()
    await floor.stop()
    await databases?.dropAll()
    rmSync(root, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
