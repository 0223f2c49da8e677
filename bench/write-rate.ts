// Durable writes per second of one user at 32 connections: add-note, and edit-note of one note
// (every edit waits for the one before it: the note's row lock is held until commit). The edits
// alternate between two texts, so each one changes the note and keeps a revision (docs/history.md).
// Service CPU per write is the service process's own (on PostgreSQL, the database's is not in it).
//
// With build directories (each a checkout with `dist/` built, as for ab-builds.js), it compares
// them: PROCESSES times it starts every build afresh, one after another, on a fresh database each
// (on PostgreSQL a database of its own, made from DATABASE_URL's server and dropped after), and
// runs ROUNDS rounds in which each scenario goes to every build in turn, so the machine's drift
// falls on all alike. It reports each build's writes/s as a ratio to the first build, with each
// round's ratio and the machine's load average (1 minute) as the round started.
// Run: npm run build:bench && node dist-bench/bench/write-rate.js [DIR_A DIR_B ...] [--out PATH]
//      (env DURATION=5 seconds per scenario and round, ROUNDS=2, PROCESSES=1; DATABASE_URL,
//      DATABASE_POOL_SIZE or SQLITE_SYNCHRONOUS passed through). Without directories: this checkout.
import { loadavg } from 'node:os'
import { resolve } from 'node:path'
import pg from 'pg'
import { type LoadRequest, LoadTally, REALISTIC, runLoad } from './load.js'
import { type ServiceWithUser, cpuSeconds, startServiceWithUser } from './processes.js'
import { argsWithoutOut, writeResults } from './report.js'

const SERVICE_SETTINGS = ['DATABASE_URL', 'DATABASE_POOL_SIZE', 'SQLITE_SYNCHRONOUS']
const SCENARIOS = ['add-note', 'edit-note'] as const
type Scenario = (typeof SCENARIOS)[number]

interface Build {
  name: string
  dir: string | undefined
  /** Node flags after the launcher's own (`DIR:--flag,--flag`, as for ab-builds.js). */
  flags: string[]
  tally: Record<Scenario, LoadTally>
  cpu: Record<Scenario, number>
}

interface Round {
  process: number
  round: number
  scenario: Scenario
  load: number
  /** writes/s of each build, in the order given. */
  rates: number[]
}

/** A fresh database on DATABASE_URL's server for one service process, dropped by `drop`. */
async function freshDatabase(adminUrl: string, name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`)
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const again = new pg.Client({ connectionString: adminUrl })
      await again.connect()
      await again.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => again.end())
    },
  }
}

function requestsOf(authorization: string, noteId: string): Record<Scenario, LoadRequest[]> {
  const headers = { authorization, 'content-type': 'application/json' }
  return {
    'add-note': [
      {
        method: 'POST',
        path: '/add-note',
        headers,
        body: JSON.stringify({ title: 'Bench note', content: 'Written durably.', tags: ['bench'] }),
      },
    ],
    'edit-note': [1, 2].map((n) => ({
      method: 'PUT',
      path: `/edit-note/${noteId}`,
      headers,
      body: JSON.stringify({ title: `Edited title ${n}`, content: `Edited content ${n}` }),
    })),
  }
}

interface Running {
  service: ServiceWithUser
  requests: Record<Scenario, LoadRequest[]>
  dropDatabase?: () => Promise<void>
}

async function start(build: Build, label: string): Promise<Running> {
  const adminUrl = process.env.DATABASE_URL
  const database =
    adminUrl && build.dir !== undefined
      ? await freshDatabase(adminUrl, `write_rate_${process.pid}_${label}`)
      : undefined
  const saved = process.env.DATABASE_URL
  if (database) process.env.DATABASE_URL = database.url
  try {
    const command =
      build.dir === undefined
        ? undefined
        : [process.execPath, '--heap-growing-percent=50', ...build.flags, resolve(build.dir, 'dist/src/cli.js')]
    const service = await startServiceWithUser(SERVICE_SETTINGS, command)
    const headers = { authorization: service.authorization, 'content-type': 'application/json' }
    const first = await fetch(`${service.service.url}/add-note`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: 'first', content: 'to edit' }),
    })
    const { note } = (await first.json()) as { note: { _id: string } }
    return {
      service,
      requests: requestsOf(service.authorization, note._id),
      ...(database ? { dropDatabase: database.drop } : {}),
    }
  } finally {
    if (database) process.env.DATABASE_URL = saved
  }
}

async function stop(running: Running): Promise<void> {
  await running.service.stop()
  await running.dropDatabase?.()
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? NaN

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const outAt = args.indexOf('--out')
  const out = outAt >= 0 ? args[outAt + 1] : undefined
  const dirs = outAt >= 0 ? args.filter((_, i) => i !== outAt && i !== outAt + 1) : args
  const seconds = Number(process.env.DURATION ?? 5)
  const rounds = Number(process.env.ROUNDS ?? (dirs.length > 0 ? 2 : 1))
  const processes = Number(process.env.PROCESSES ?? 1)
  const builds: Build[] = (dirs.length > 0 ? dirs : [undefined]).map((name) => ({
    name: name ?? '.',
    dir: name?.split(':')[0],
    flags: name?.split(':')[1]?.split(',') ?? [],
    tally: { 'add-note': new LoadTally(), 'edit-note': new LoadTally() },
    cpu: { 'add-note': 0, 'edit-note': 0 },
  }))
  const log: Round[] = []
  const running: Running[] = []
  try {
    for (let p = 0; p < processes; p++) {
      for (const [i, b] of builds.entries()) running.push(await start(b, `${p}_${i}`))
      for (const scenario of SCENARIOS) {
        for (const r of running) await runLoad(r.service.service.url, r.requests[scenario], REALISTIC, 1) // warm-up
      }
      for (let round = 0; round < rounds; round++) {
        for (const scenario of SCENARIOS) {
          const entry: Round = { process: p + 1, round: round + 1, scenario, load: loadavg()[0] ?? NaN, rates: [] }
          for (const [i, b] of builds.entries()) {
            const r = running[i]!
            const before = cpuSeconds(r.service.service.pid)
            const tally = b.tally[scenario]
            const [ok, took] = [tally.ok, tally.seconds]
            await runLoad(r.service.service.url, r.requests[scenario], REALISTIC, seconds, tally)
            b.cpu[scenario] += cpuSeconds(r.service.service.pid) - before
            entry.rates.push((tally.ok - ok) / Math.max(tally.seconds - took, 0.001))
          }
          log.push(entry)
          const ratios = entry.rates.slice(1).map((rate) => (rate / entry.rates[0]!).toFixed(2))
          process.stderr.write(
            `process ${entry.process} round ${entry.round} ${scenario}: ${entry.rates.map(Math.round).join(' / ')} writes/s${ratios.length ? `, ratio ${ratios.join(', ')}` : ''}, load ${entry.load.toFixed(1)}\n`,
          )
        }
      }
      while (running.length > 0) await stop(running.pop()!)
    }
  } finally {
    for (const r of running) await stop(r)
  }
  const store = process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'
  type Figures = {
    writesPerSecond: number
    ratio: number
    medianRoundRatio: number
    p50: number
    p99: number
    cpuMicrosPerWrite: number
    non2xx: number
  }
  const summary = builds.map((b, i) => ({
    build: b.name,
    ...(Object.fromEntries(
      SCENARIOS.map((scenario) => {
        const r = b.tally[scenario].result()
        const roundRatios = log.filter((e) => e.scenario === scenario).map((e) => e.rates[i]! / e.rates[0]!)
        const cpuPerWrite = (b.cpu[scenario] * 1e6) / Math.max(1, r.ok + r.non2xx)
        return [
          scenario,
          {
            writesPerSecond: r.rps,
            ratio: r.rps / builds[0]!.tally[scenario].result().rps,
            medianRoundRatio: median(roundRatios),
            p50: r.p50,
            p99: r.p99,
            cpuMicrosPerWrite: cpuPerWrite,
            non2xx: r.non2xx,
          },
        ]
      }),
    ) as Record<Scenario, Figures>),
  }))
  const lines = [
    `${store}, ${REALISTIC.label}, ${processes} process(es) per build, each ${rounds} alternating round(s) of ${seconds} s per scenario`,
    '',
    "| build | scenario | writes/s | ratio to the first | median of the rounds' ratios | p50 ms | p99 ms | service CPU µs per write | non-2xx |",
    '|---|---|---|---|---|---|---|---|---|',
  ]
  for (const scenario of SCENARIOS) {
    for (const row of summary) {
      const r = row[scenario]
      lines.push(
        `| ${row.build} | ${scenario} | ${Math.round(r.writesPerSecond)} | ${r.ratio.toFixed(2)} | ${r.medianRoundRatio.toFixed(2)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.cpuMicrosPerWrite.toFixed(0)} | ${r.non2xx} |`,
      )
    }
  }
  if (builds.length > 1) {
    lines.push(
      '',
      '| process | round | scenario | load avg | writes/s per build | ratios to the first |',
      '|---|---|---|---|---|---|',
    )
    for (const e of log) {
      const ratios = e.rates
        .slice(1)
        .map((rate) => (rate / e.rates[0]!).toFixed(2))
        .join(', ')
      lines.push(
        `| ${e.process} | ${e.round} | ${e.scenario} | ${e.load.toFixed(1)} | ${e.rates.map(Math.round).join(' / ')} | ${ratios} |`,
      )
    }
  }
  const markdown = `${lines.join('\n')}\n`
  console.log(markdown)
  const settings = ['DATABASE_URL', 'PROCESSES', 'ROUNDS', 'DURATION']
    .filter((k) => process.env[k] !== undefined)
    .map((k) => `${k}=${process.env[k]}`)
  const command = [...settings, 'node dist-bench/bench/write-rate.js', ...argsWithoutOut()].join(' ')
  writeResults(out, `# write-rate\n\n\`${command}\`\n\n${markdown}`, {
    command,
    store,
    seconds,
    rounds,
    processes,
    summary,
    rounds_log: log,
  })
}

main().catch((err: unknown) => {
  process.stderr.write(`write-rate failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
