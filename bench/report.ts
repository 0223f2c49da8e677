// The Markdown report of the benchmark: machine, disk limit, every comparison with the ceiling,
// login under load, growth, scale, and the targets (docs/performance.md) with their outcome. And
// the results files of the tools that keep theirs (search-index/, sync-latency.ts,
// idle-streams.ts): the Markdown and the JSON side by side in bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { LoadResult } from './load.js'
import type { Plan, StoreResult } from './store-bench.js'

/** The disk's single-row durable commit rate (run.ts measures it). */
export interface CommitRate {
  commitsPerSecond: number
  commits: number
  seconds: number
}

export interface Machine {
  date: string
  nproc: number
  cpu: string
  node: string
  memoryGb: number
  command: string
  /** Extra service environment given with --service-env; empty for the default. */
  serviceEnv: string
}

const MB = 1024 * 1024
const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–')
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 1) : '–')
const mb = (n: number) => (n / MB).toFixed(0)
const ratio = (a: number, b: number | undefined) => (b ? (a / b).toFixed(2) : '–')
const pct = (a: number, b: number) => `${(((a - b) / b) * 100).toFixed(1)} %`
const failures = (r: LoadResult) => (r.non2xx + r.errors > 0 ? ` (${r.non2xx} non-2xx, ${r.errors} errors)` : '')

function table(head: string[], rows: string[][]): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n')
}

interface Target {
  what: string
  goal: string
  got: string
  met: boolean
}

function targets(r: StoreResult, disk: CommitRate): Target[] {
  const out: Target[] = []
  const find = (prefix: string, shape = '32 conn') =>
    r.comparisons.find((c) => c.scenario.startsWith(prefix) && c.shape.label === shape)
  // The listing is measured as served (cache on, the default) and with the cache off.
  for (const [name, scenario] of [
    ['get-user', 'get-user'],
    ['get-all-notes', 'get-all-notes (20 notes)'],
    ['get-all-notes, cache off', 'get-all-notes (20 notes), LISTING_CACHE_MB=0'],
  ] as const) {
    const c = r.comparisons.find((x) => x.scenario === scenario && x.shape.label === '32 conn')
    if (!c?.ceiling) continue
    const share = c.service.rps / c.ceiling.rps
    out.push({ what: `${name}, 32 conn`, goal: '≥ 0.6 of ceiling req/s', got: share.toFixed(2), met: share >= 0.6 })
    out.push({ what: `${name}, 32 conn`, goal: 'p99 < 10 ms', got: `${ms(c.service.p99)} ms`, met: c.service.p99 < 10 })
  }
  for (const shape of ['32 conn', '100 conn × 10 pipelined']) {
    const add = find('add-note', shape)
    if (add) {
      out.push({
        what: `add-note, ${shape}`,
        goal: '≥ 3 000 durable writes/s',
        got: `${int(add.service.rps)}/s (disk: ${int(disk.commitsPerSecond)} single-row commits/s)`,
        met: add.service.rps >= 3000,
      })
    }
  }
  for (const g of r.growth.filter((x) => x.notes === 1000 || x.notes === 10_000)) {
    const limit = g.notes === 1000 ? 5 : 40
    for (const [kind, res] of [
      ['literal', g.literal],
      ['regex', g.regex],
    ] as const) {
      out.push({
        what: `search ${kind}, ${int(g.notes)} notes`,
        goal: `p50 < ${limit} ms`,
        got: `${ms(res.p50)} ms`,
        met: res.p50 < limit,
      })
    }
  }
  const [empty, full] = r.scale
  if (empty && full) {
    const rps = Math.abs(full.realistic.rps - empty.realistic.rps) / empty.realistic.rps
    const p50 = Math.abs(full.serial.p50 - empty.serial.p50) / empty.serial.p50
    out.push({
      what: `20-note listing beside ${int(full.totalNotes - 20)} notes`,
      goal: 'changes < 20 %',
      got: `req/s ${pct(full.realistic.rps, empty.realistic.rps)}, p50 ${pct(full.serial.p50, empty.serial.p50)}`,
      met: rps < 0.2 && p50 < 0.2,
    })
  }
  out.push({ what: 'service RSS, whole run', goal: '< 200 MB', got: `${mb(r.maxRss)} MB`, met: r.maxRss < 200 * MB })
  return out
}

/** `about`: a line on the store itself (e.g. the PostgreSQL server's version and settings). */
export function storeSection(r: StoreResult, disk: CommitRate, plan: Plan, about?: string): string {
  const parts: string[] = [`## ${r.store}`]
  if (about) parts.push(about)
  parts.push(
    '### Targets',
    table(
      ['what', 'target', 'measured', 'met'],
      targets(r, disk).map((t) => [t.what, t.goal, t.got, t.met ? 'yes' : '**no**']),
    ),
  )
  parts.push(
    '### Service against the ceiling',
    'Ceiling: a bare `node:http` server answering the same requests with the same response bytes. Latency in ms. ' +
      'Search and the mixed workload run at 32 connections only: 1 000 pipelined requests of a few ms each outlast ' +
      "autocannon's 10 s timeout, so that figure would measure the backlog. Login runs at 32 connections only (argon2id-bound).",
    table(
      ['scenario', 'load', 'req/s', 'p50', 'p99', 'ceiling req/s', 'ceiling p50', 'ceiling p99', 'ratio', 'RSS MB'],
      r.comparisons.map((c) => [
        c.scenario + failures(c.service),
        c.shape.label,
        int(c.service.rps),
        ms(c.service.p50),
        ms(c.service.p99),
        int(c.ceiling?.rps ?? NaN),
        ms(c.ceiling?.p50 ?? NaN),
        ms(c.ceiling?.p99 ?? NaN),
        ratio(c.service.rps, c.ceiling?.rps),
        mb(c.rss),
      ]),
    ),
  )
  const floored = r.comparisons.filter((c) => c.floor && c.ceiling)
  if (floored.length > 0) {
    parts.push(
      "### The framework's share",
      'The same requests, answered with the same bytes by a bare Fastify app (defaults, one catch-all route, no plugins or hooks), ' +
        "measured in the same rounds: the gap between the ceiling and this floor is Fastify's own; the gap below it is the service's.",
      table(
        [
          'scenario',
          'load',
          'ceiling req/s',
          'bare Fastify req/s',
          'service req/s',
          'Fastify / ceiling',
          'service / ceiling',
          'service / Fastify',
        ],
        floored.map((c) => [
          c.scenario,
          c.shape.label,
          int(c.ceiling?.rps ?? NaN),
          int(c.floor?.rps ?? NaN),
          int(c.service.rps),
          ratio(c.floor?.rps ?? NaN, c.ceiling?.rps),
          ratio(c.service.rps, c.ceiling?.rps),
          ratio(c.service.rps, c.floor?.rps),
        ]),
      ),
    )
  }
  const l = r.loginUnderLoad
  parts.push(
    '### get-user while logins run',
    'argon2id (19 MiB, t = 2) bounds login; these rows show what it does to the other endpoints.',
    table(
      ['load', 'req/s', 'p50', 'p99'],
      [
        ['get-user alone, 16 conn', int(l.alone.rps), ms(l.alone.p50), ms(l.alone.p99)],
        [
          'get-user, 16 conn, beside 16 conn of logins',
          int(l.withLogins.rps),
          ms(l.withLogins.p50),
          ms(l.withLogins.p99),
        ],
        [
          'login, 16 conn, at the same time' + failures(l.logins),
          int(l.logins.rps),
          ms(l.logins.p50),
          ms(l.logins.p99),
        ],
      ],
    ),
  )
  parts.push(
    "### Growth with the user's own notes",
    `One connection, one request at a time (service time, no queueing), ${plan.growthTiming.duration} s each, listing cache off (LISTING_CACHE_MB=0), so every listing is read from the store. Latency in ms.`,
    table(
      ['notes', 'get-all-notes p50', 'p99', `search "grocery" p50`, 'p99', 'search regex p50', 'p99'],
      r.growth.map((g) => [
        int(g.notes),
        ms(g.list.p50),
        ms(g.list.p99),
        ms(g.literal.p50),
        ms(g.literal.p99),
        ms(g.regex.p50),
        ms(g.regex.p99),
      ]),
    ),
  )
  parts.push(
    "### A 20-note user beside other users' notes",
    'Listing cache off (LISTING_CACHE_MB=0): every listing is read from the store.',
    table(
      ['database', 'notes in it', 'req/s (32 conn)', 'p99 (32 conn)', 'p50 (1 conn)', 'p99 (1 conn)'],
      r.scale.map((s) => [
        s.label,
        int(s.totalNotes),
        int(s.realistic.rps),
        ms(s.realistic.p99),
        ms(s.serial.p50),
        ms(s.serial.p99),
      ]),
    ),
  )
  return parts.join('\n\n')
}

export function header(machine: Machine, plan: Plan, disk: CommitRate): string {
  return [
    `# notes-service benchmark${plan.quick ? ' (quick)' : ''}`,
    `- date: ${machine.date}`,
    `- machine: ${machine.nproc} CPUs (\`nproc\`), ${machine.cpu}, ${machine.memoryGb} GB RAM; Node.js ${machine.node}`,
    `- command: \`${machine.command}\`; load generator (autocannon) on the same machine, loopback`,
    `- service: started as \`bin/notes-service serve\` (what \`npm start\` runs; it sets GLIBC_TUNABLES for argon2id's memory), environment ${machine.serviceEnv ? `\`${machine.serviceEnv}\`` : 'defaults'} plus the bench's PORT, DATA_DIR, LOG_LEVEL=warn, BRUTE_FORCE_PROTECTION=false`,
    `- each measurement: ${plan.timing.warmup} s warm-up, then ${plan.timing.duration} s`,
    `- disk: ${int(disk.commitsPerSecond)} single-row durable commits/s (SQLite WAL, synchronous=FULL, same file system)`,
  ].join('\n')
}

/** This run's arguments without --out and its value: the report shows the command that made it. */
export function argsWithoutOut(): string[] {
  const args = process.argv.slice(2)
  return args.filter((a, i) => !a.startsWith('--out') && args[i - 1] !== '--out')
}

/** Writes `out`.md and `out`.json; nothing when `out` is empty (`--out ''`). */
export function writeResults(out: string | undefined, markdown: string, json: object): void {
  if (!out) return
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(`${out}.md`, markdown)
  writeFileSync(`${out}.json`, `${JSON.stringify({ date: new Date().toISOString(), ...json }, null, 2)}\n`)
  process.stderr.write(`written: ${out}.md and ${out}.json\n`)
}
