// Search at 1 000, 100 000 and 1 000 000 notes of one account, on each store: the figures a
// search index is to be judged by (before and after). For each store (SQLite always, PostgreSQL
// when DATABASE_URL is set, in a database of its own, dropped after) and each size, one account
// is seeded straight into the store with the corpus of corpus.ts, and a second account with
// copies of the notes "grocery" finds; the built service is started fresh on them
// (listing cache off, so a listing reads the store as a search does; the note quotas raised for
// the run) and measured one request at a time over one kept-alive connection: p50 and p99 of each
// pattern, GET /get-all-notes of the second account, at 1 000 notes "grocery" at 32 connections,
// and then, service stopped, what the store occupies: every table and index.
// Run: npm run build:bench && node dist-bench/bench/search-index/run.js [--out bench/results/search-index]
//      SIZES=1000,100000 (1000000 works too); SEARCHES=N timed searches per pattern at every size
//      (default 200 at 1 000 notes, 50 up to 100 000, 20 above); DATABASE_URL=postgres://… adds
//      PostgreSQL (STORES=postgresql: that one alone); SEARCH_THREADS, SEARCH_TIMEOUT_MS,
//      LISTING_CACHE_MB, … pass through to the service.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { publicUser } from '../../src/services/accounts.js'
import { newId } from '../../src/services/ids.js'
import { createTokenService } from '../../src/services/tokens.js'
import type { NoteRecord } from '../../src/store/types.js'
import { REALISTIC, runLoad } from '../load.js'
import { BenchDatabases, PostgresSeeder } from '../postgres-seed.js'
import { startService } from '../processes.js'
import { argsWithoutOut, writeResults } from '../report.js'
import { SqliteSeeder, makeUser } from '../seed.js'
import { searchPath, seed } from '../store-bench.js'
import { LISTING_PATTERN, SEARCH_PATTERNS, makeSearchNotes } from './corpus.js'
import {
  SerialClient,
  type StoreSize,
  awaitSearchIndex,
  emptySqliteIndex,
  postgresSize,
  sqliteSize,
  timeSerial,
} from './measure.js'
import { type SizeResult, report } from './report.js'

const DEFAULT_OUT = fileURLToPath(new URL('../../../bench/results/search-index', import.meta.url))
/** Service settings taken from this process's environment (the service gets no other). */
const PASSED_THROUGH = [
  'SEARCH_THREADS',
  'SEARCH_QUEUE',
  'SEARCH_TIMEOUT_MS',
  'LISTING_CACHE_MB',
  'DATABASE_POOL_SIZE',
  'NODE_OPTIONS',
  'GLIBC_TUNABLES',
]
/** The size at which "grocery" is also run at 32 connections. */
const CONCURRENT_AT = 1000
const CONCURRENT_SECONDS = 5

const searchesAt = (notes: number) => Number(process.env.SEARCHES ?? (notes <= 1000 ? 200 : notes <= 100_000 ? 50 : 20))
const log = (line: string) => process.stderr.write(`${line}\n`)
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')

interface Store {
  name: string
  /** Seeds `dataDir`'s store; returns the service's DATABASE_URL (none for SQLite). */
  prepare(
    dataDir: string,
    users: ReturnType<typeof makeUser>[],
    batches: Iterable<NoteRecord>[],
  ): Promise<string | undefined>
  size(dataDir: string): Promise<StoreSize>
  cleanUp(): Promise<void>
}

const sqlite: Store = {
  name: 'SQLite',
  async prepare(dataDir, users, batches) {
    await seed(new SqliteSeeder(dataDir), users, batches)
    return undefined
  },
  size: async (dataDir) => sqliteSize(dataDir),
  cleanUp: async () => {},
}

function postgres(databases: BenchDatabases): Store {
  return {
    name: 'PostgreSQL',
    async prepare(dataDir, users, batches) {
      const url = await databases.create(dataDir)
      await seed(new PostgresSeeder(url), users, batches)
      return url
    },
    size: (dataDir) => postgresSize(databases.urlOf(dataDir)),
    cleanUp: () => databases.dropAll(),
  }
}

/** The searching account's notes, counting what each pattern matches and keeping the listing pattern's matches. */
function* counted(
  notes: Iterable<NoteRecord>,
  expected: number[],
  listed: NoteRecord[],
): Generator<NoteRecord, void, undefined> {
  for (const note of notes) {
    SEARCH_PATTERNS.forEach((p, i) => {
      if (p.matches.test(note.title) || p.matches.test(note.content)) {
        expected[i] = (expected[i] ?? 0) + 1
        if (p.query === LISTING_PATTERN) listed.push(note)
      }
    })
    yield note
  }
}

async function measureSize(store: Store, notes: number, serviceEnv: Record<string, string>): Promise<SizeResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-search-index-'))
  try {
    const searcher = makeUser(`searcher-${notes}`)
    const lister = makeUser(`lister-${notes}`)
    const expected = SEARCH_PATTERNS.map(() => 0)
    const listed: NoteRecord[] = []
    log(`[${store.name}] seeding ${notes} notes (load ${load()})`)
    const began = performance.now()
    // The lister's batch is read after the searcher's has been written: `listed` is complete by then.
    const listerNotes = function* () {
      for (const note of listed) yield { ...note, _id: newId(), userId: lister._id }
    }
    const databaseUrl = await store.prepare(
      dataDir,
      [searcher, lister],
      [counted(makeSearchNotes(searcher._id, notes), expected, listed), listerNotes()],
    )
    const seedSeconds = (performance.now() - began) / 1000
    const secret = randomBytes(32).toString('hex')
    const tokens = createTokenService(secret)
    if (!databaseUrl) emptySqliteIndex(dataDir)
    const service = await startService({ dataDir, secret, env: serviceEnv, ...(databaseUrl ? { databaseUrl } : {}) })
    log(`[${store.name}] ${notes} notes: waiting for the search index`)
    const indexSeconds = await awaitSearchIndex(dataDir, databaseUrl)
    const count = searchesAt(notes)
    const warmup = Math.max(3, Math.round(count / 10))
    let result: SizeResult
    try {
      const searcherAuth = `Bearer ${tokens.issue(publicUser(searcher))}`
      const client = new SerialClient(service.url, searcherAuth)
      const patterns = []
      for (const [i, p] of SEARCH_PATTERNS.entries()) {
        log(`[${store.name}] ${notes} notes: ${p.query}`)
        patterns.push({
          query: p.query,
          expected: expected[i] ?? 0,
          ...(await timeSerial(client, searchPath(p.query), warmup, count)),
        })
      }
      client.close()
      const listClient = new SerialClient(service.url, `Bearer ${tokens.issue(publicUser(lister))}`)
      const listing = {
        notes: listed.length,
        query: LISTING_PATTERN,
        ...(await timeSerial(listClient, '/get-all-notes', warmup, count)),
      }
      listClient.close()
      result = {
        store: store.name,
        notes,
        seedSeconds,
        indexSeconds,
        warmup,
        patterns,
        listing,
        size: { totalBytes: NaN, relations: [] },
      }
      if (notes === CONCURRENT_AT) {
        const request = {
          method: 'GET' as const,
          path: searchPath(LISTING_PATTERN),
          headers: { authorization: searcherAuth },
        }
        await runLoad(service.url, [request], REALISTIC, 2)
        const c = await runLoad(service.url, [request], REALISTIC, CONCURRENT_SECONDS)
        result.concurrent = {
          query: LISTING_PATTERN,
          connections: REALISTIC.connections,
          seconds: CONCURRENT_SECONDS,
          ...c,
        }
      }
    } finally {
      await service.stop()
    }
    result.size = await store.size(dataDir)
    return result
  } finally {
    await store.cleanUp()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/** The command as run, with the settings that shaped it; a database URL without its password. */
function commandLine(out: string): string {
  const settings = ['SIZES', 'SEARCHES', 'STORES', 'DATABASE_URL', ...PASSED_THROUGH]
    .filter((k) => process.env[k] !== undefined)
    .map((k) => {
      if (k !== 'DATABASE_URL') return `${k}=${process.env[k]}`
      const url = new URL(process.env[k] as string)
      url.password = ''
      return `${k}=${url.toString()}`
    })
  const args = [...argsWithoutOut(), ...(out === DEFAULT_OUT ? [] : ['--out', out.replace(`${process.cwd()}/`, '')])]
  return [...settings, 'node dist-bench/bench/search-index/run.js', ...args].join(' ')
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string', default: DEFAULT_OUT } } })
  const out = values.out
  const sizes = (process.env.SIZES ?? '1000,100000').split(',').map(Number)
  if (sizes.some((s) => !Number.isInteger(s) || s < 1))
    throw new Error(`SIZES wants whole numbers of notes, e.g. 1000,100000; got ${process.env.SIZES}`)
  const serviceEnv: Record<string, string> = {
    LISTING_CACHE_MB: '0',
    // The account holds more than the default quotas allow (50 000 notes, 200 MB); this run only.
    MAX_NOTES_PER_ACCOUNT: '1000000000',
    MAX_NOTE_MB_PER_ACCOUNT: '0',
  }
  for (const k of PASSED_THROUGH) if (process.env[k] !== undefined) serviceEnv[k] = process.env[k]
  const databases = process.env.DATABASE_URL ? new BenchDatabases(process.env.DATABASE_URL) : undefined
  const only = process.env.STORES?.toLowerCase().split(',')
  const stores = [sqlite, ...(databases ? [postgres(databases)] : [])].filter(
    (s) => !only || only.includes(s.name.toLowerCase()),
  )
  if (stores.length === 0)
    throw new Error(`STORES=${process.env.STORES} names no store this run has (sqlite; postgresql with DATABASE_URL)`)
  const header = [
    '# Search benchmark',
    '',
    `\`${commandLine(out ?? DEFAULT_OUT)}\``,
    '',
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node.js ${process.version}; load average (1, 5, 15 min) at the start: ${load()}.`,
    `Service: built (\`dist/\`), started fresh per store and size, ${Object.entries(serviceEnv)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')}.`,
    ...(databases ? [await databases.describeServer()] : []),
  ]
  const results: SizeResult[] = []
  const save = (final: boolean) => {
    const lines = final
      ? [...header, `Load average at the end: ${load()}.`]
      : [...header, '(incomplete: the run is still going or stopped early)']
    const markdown = report(lines, results)
    writeResults(out, markdown, { command: commandLine(out ?? DEFAULT_OUT), serviceEnv, loadAtEnd: loadavg(), results })
    return markdown
  }
  try {
    for (const store of stores) {
      for (const notes of sizes) {
        results.push(await measureSize(store, notes, serviceEnv))
        save(false)
      }
    }
  } finally {
    await databases?.dropAll()
  }
  process.stdout.write(save(true))
}

main().catch((err: unknown) => {
  process.stderr.write(`search-index failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
