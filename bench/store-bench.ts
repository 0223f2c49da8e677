// The benchmark of one store: seed, start the service, run every scenario against it and the
// ceiling, then the growth and scale phases. Returns the figures; bench/report.ts prints them.
import { mkdirSync } from 'node:fs'
import { publicUser } from '../src/services/accounts.js'
import { createTokenService } from '../src/services/tokens.js'
import type { NoteRecord, UserRecord } from '../src/store/types.js'
import {
  type LoadRequest,
  type LoadResult,
  LoadTally,
  PIPELINED,
  REALISTIC,
  SERIAL,
  runLoad,
  runLoadsTogether,
} from './load.js'
import { type Comparison, type Timing, compare } from './measure.js'
import type { CeilingProcess, ServiceProcess } from './processes.js'
import { BENCH_PASSWORD, registerAccount, startService } from './processes.js'
import { LITERAL_QUERY, REGEX_QUERY, type Seeder, makeNotes, makeNotesOf, makeUser } from './seed.js'

export interface Plan {
  quick: boolean
  timing: Timing
  growthTiming: Timing
  growthSizes: number[]
  /** The scale phase: other users and notes per other user (10 000 × 100 = 1 000 000). */
  otherUsers: number
  notesPerOtherUser: number
}

export interface StoreSetup {
  store: string
  /** A fresh, empty data directory per call. */
  dataDir(): string
  /** Called before every seeding of a data set; on PostgreSQL it creates the data set's database. */
  seeder(dataDir: string): Seeder | Promise<Seeder>
  /** The service's DATABASE_URL for a data set (seeded first); undefined means SQLite. */
  databaseUrl?(dataDir: string): string
  /** Called with no service running, after the write scenarios and before the growth phase. */
  settle?(dataDir: string): Promise<void>
  nodeArgs?: string[]
  env?: Record<string, string>
}

export interface GrowthRow {
  notes: number
  list: LoadResult
  literal: LoadResult
  regex: LoadResult
}

export interface ScaleRow {
  label: string
  totalNotes: number
  realistic: LoadResult
  serial: LoadResult
}

export interface LoginUnderLoad {
  alone: LoadResult
  withLogins: LoadResult
  logins: LoadResult
}

export interface StoreResult {
  store: string
  comparisons: Comparison[]
  loginUnderLoad: LoginUnderLoad
  growth: GrowthRow[]
  scale: ScaleRow[]
  maxRss: number
}

const json = (value: unknown) => JSON.stringify(value)
/** For the phases that measure the store's reads: no listing answered from memory. */
const NO_LISTING_CACHE = { LISTING_CACHE_MB: '0' }
const auth = (token: string) => ({ authorization: `Bearer ${token}` })
export const searchPath = (query: string) => `/search-notes?query=${encodeURIComponent(query)}`

/** The service's memory for the log: RSS peak so far, and V8's heap and external memory now (from /metrics). */
async function memoryOf(service: ServiceProcess): Promise<string> {
  const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`
  let v8 = ''
  try {
    const text = await (await fetch(`${service.url}/metrics`)).text()
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN)
    v8 = `, V8 heap ${mb(gauge('nodejs_heap_size_total_bytes'))}, external ${mb(gauge('nodejs_external_memory_bytes'))}`
  } catch {
    // metrics switched off: RSS alone
  }
  return `service RSS peak so far ${mb(service.rss.max)}${v8}`
}

/** Writes the users, then each batch of notes, into a migrated store, and closes it. */
export async function seed(seeder: Seeder, users: UserRecord[], notes: Iterable<NoteRecord>[]) {
  await seeder.migrate()
  await seeder.insertUsers(users)
  for (const batch of notes) await seeder.insertNotes(batch)
  await seeder.close()
}

export async function benchStore(
  setup: StoreSetup,
  plan: Plan,
  ceiling: CeilingProcess,
  secret: string,
  floor?: CeilingProcess,
): Promise<StoreResult> {
  const tokens = createTokenService(secret)
  const tokenOf = (u: UserRecord) => tokens.issue(publicUser(u))
  const log = (line: string) => process.stderr.write(`[${setup.store}] ${line}\n`)

  // Main data: one user per role, so writes never change what the read scenarios read.
  const reader = makeUser('reader-20')
  const searcher = makeUser('searcher-1000')
  const writer = makeUser('writer')
  const pinner = makeUser('pinner')
  const mixer = makeUser('mixer')
  const growthUsers = plan.growthSizes.map((n) => ({ n, user: makeUser(`growth-${n}`) }))
  const writerNote = makeNotes(writer._id, 1).next().value
  const pinnerNote = makeNotes(pinner._id, 1).next().value
  const mixerNote = makeNotes(mixer._id, 1).next().value
  if (!writerNote || !pinnerNote || !mixerNote) throw new Error('unreachable: a generator of one note gave none')
  const mainDir = setup.dataDir()
  log('seeding the scenario users')
  await seed(
    await setup.seeder(mainDir),
    [reader, searcher, writer, pinner, mixer, ...growthUsers.map((g) => g.user)],
    [
      makeNotes(reader._id, 20),
      makeNotes(searcher._id, 1000),
      [writerNote, pinnerNote, mixerNote],
      ...growthUsers.map((g) => makeNotes(g.user._id, g.n)),
    ],
  )

  const services: ServiceProcess[] = []
  const start = async (dataDir: string, env: Record<string, string> = {}) => {
    const s = await startService({
      dataDir,
      secret,
      databaseUrl: setup.databaseUrl?.(dataDir),
      nodeArgs: setup.nodeArgs,
      env: { ...setup.env, ...env },
    })
    services.push(s)
    return s
  }
  const service = await start(mainDir)
  const comparisons: Comparison[] = []
  let loginUnderLoad: LoginUnderLoad
  const growth: GrowthRow[] = []
  try {
    // The login user is registered through the API: its password hash must be a real argon2id.
    const loginBody = json({ email: 'login@bench.example', password: BENCH_PASSWORD })
    await registerAccount(service.url, 'Login', 'login@bench.example')

    const r = auth(tokenOf(reader))
    const s = auth(tokenOf(searcher))
    const w = auth(tokenOf(writer))
    const p = auth(tokenOf(pinner))
    const m = auth(tokenOf(mixer))
    const getUser: LoadRequest = { method: 'GET', path: '/get-user', headers: r }
    const listNotes: LoadRequest = { method: 'GET', path: '/get-all-notes', headers: r }
    const addNote = (headers: Record<string, string>): LoadRequest => ({
      method: 'POST',
      path: '/add-note',
      headers,
      body: json({ title: 'Bench note', content: 'Written by the benchmark, durably.', tags: ['bench'] }),
    })
    const editNote = (headers: Record<string, string>, id: string): LoadRequest => ({
      method: 'PUT',
      path: `/edit-note/${id}`,
      headers,
      body: json({ title: 'Edited title', content: 'Edited content' }),
    })
    const literal: LoadRequest = { method: 'GET', path: searchPath(LITERAL_QUERY), headers: s }
    const regex: LoadRequest = { method: 'GET', path: searchPath(REGEX_QUERY), headers: s }
    const login: LoadRequest = { method: 'POST', path: '/login', body: loginBody }
    const pin = (isPinned: boolean): LoadRequest => ({
      method: 'PUT',
      path: `/update-note-pinned/${pinnerNote._id}`,
      headers: p,
      body: json({ isPinned }),
    })
    // 70 % reads, 20 % writes, 10 % search, cycled by every connection.
    const mixed: LoadRequest[] = [
      listNotes,
      getUser,
      listNotes,
      getUser,
      listNotes,
      getUser,
      listNotes,
      addNote(m),
      editNote(m, mixerNote._id),
      literal,
    ]
    // [name, requests, also under 100 × 10 pipelined]. Search and the mix (10 % search) are not
    // pipelined: 1 000 requests in flight at a few ms each outlast autocannon's 10 s timeout, and
    // the figure would show only the backlog (the first full run did: 0 answers in time).
    const scenarios: [string, LoadRequest[], boolean][] = [
      ['get-user', [getUser], true],
      ['get-all-notes (20 notes)', [listNotes], true],
      [`search-notes literal "${LITERAL_QUERY}" (1 000 notes)`, [literal], false],
      [`search-notes regex "${REGEX_QUERY}" (1 000 notes)`, [regex], false],
      ['add-note', [addNote(w)], true],
      ['edit-note', [editNote(w, writerNote._id)], true],
      ['update-note-pinned', [pin(true), pin(false)], true],
      ['mixed 70/20/10', mixed, false],
    ]
    for (const shape of [REALISTIC, PIPELINED]) {
      for (const [name, requests, pipelined] of scenarios) {
        if (shape === PIPELINED && !pipelined) continue
        // The smoke check pipelines only the first two scenarios: same code paths, less time.
        if (plan.quick && shape === PIPELINED && comparisons.length >= scenarios.length + 2) break
        // get-user and the listing are also measured against bare Fastify (the framework's floor).
        const withFloor = shape === REALISTIC && (name === 'get-user' || name.startsWith('get-all-notes'))
        comparisons.push(
          await compare(name, requests, shape, service, ceiling, plan.timing, withFloor ? floor : undefined),
        )
      }
    }
    // argon2id-bound: 100 × 10 pipelined logins would only queue past autocannon's timeout.
    comparisons.push(await compare('login (argon2id)', [login], REALISTIC, service, ceiling, plan.timing))

    log('get-user while logins run')
    const half = { ...REALISTIC, label: '16 conn', connections: 16 }
    const alone = await runLoad(service.url, [getUser], half, plan.timing.duration)
    const [withLogins, logins] = await runLoadsTogether(
      service.url,
      [
        { requests: [getUser], shape: half },
        { requests: [login], shape: half },
      ],
      plan.timing.duration,
    )
    loginUnderLoad = { alone, withLogins: withLogins as LoadResult, logins: logins as LoadResult }
    log(`  done (${await memoryOf(service)})`)
  } finally {
    await service.stop()
  }

  // The rest measures how the store's reads grow with data, so the SQLite listing cache (which
  // answers a repeated listing from memory whatever the data) is off: LISTING_CACHE_MB=0.
  if (setup.settle) {
    log('settling the tables after the writes (VACUUM ANALYZE, as autovacuum would)')
    await setup.settle(mainDir)
  }
  const uncached = await start(mainDir, NO_LISTING_CACHE)
  try {
    const r = auth(tokenOf(reader))
    const listNotes: LoadRequest = { method: 'GET', path: '/get-all-notes', headers: r }
    // Reported for SQLite only: PostgreSQL's listing without its cache shows in the growth and
    // scale rows below.
    if (!setup.databaseUrl) {
      comparisons.push(
        await compare(
          'get-all-notes (20 notes), LISTING_CACHE_MB=0',
          [listNotes],
          REALISTIC,
          uncached,
          ceiling,
          plan.timing,
          floor,
        ),
      )
    }

    log('growth: one connection, one request at a time')
    for (const { n, user } of growthUsers) {
      const h = auth(tokenOf(user))
      const one = async (req: LoadRequest) => {
        await runLoad(uncached.url, [req], SERIAL, plan.growthTiming.warmup)
        return runLoad(uncached.url, [req], SERIAL, plan.growthTiming.duration)
      }
      growth.push({
        notes: n,
        list: await one({ method: 'GET', path: '/get-all-notes', headers: h }),
        literal: await one({ method: 'GET', path: searchPath(LITERAL_QUERY), headers: h }),
        regex: await one({ method: 'GET', path: searchPath(REGEX_QUERY), headers: h }),
      })
      log(`  ${n} notes done (${await memoryOf(uncached)})`)
    }
  } finally {
    await uncached.stop()
  }

  const scale = await scalePhase(setup, plan, start, tokenOf, log)
  const maxRss = Math.max(...services.map((x) => x.rss.max))
  return { store: setup.store, comparisons, loginUnderLoad, growth, scale, maxRss }
}

/**
 * Rounds of the scale phase (2 in the smoke check). The two databases' services take turns,
 * round after round, so a change in the machine's pace during the phase falls on both alike
 * (measured one after the other, the comparison swung by tens of percent between runs).
 */
const SCALE_ROUNDS = 4

/** The same 20-note user's listing in a database holding only them, and in one beside a million notes. */
async function scalePhase(
  setup: StoreSetup,
  plan: Plan,
  start: (dataDir: string, env?: Record<string, string>) => Promise<ServiceProcess>,
  tokenOf: (u: UserRecord) => string,
  log: (line: string) => void,
): Promise<ScaleRow[]> {
  const user = makeUser('scale-20')
  const notes = [...makeNotes(user._id, 20)]
  const others = Array.from({ length: plan.otherUsers }, (_, i) => makeUser(`other-${i}`))
  const alone = setup.dataDir()
  const crowded = setup.dataDir()
  for (const dir of [alone, crowded]) mkdirSync(dir, { recursive: true })
  await seed(await setup.seeder(alone), [user], [notes])
  log(`seeding ${plan.otherUsers * plan.notesPerOtherUser} notes of ${plan.otherUsers} other users`)
  const began = performance.now()
  await seed(await setup.seeder(crowded), [user, ...others], [notes, makeNotesOf(others, plan.notesPerOtherUser)])
  log(`  seeded in ${((performance.now() - began) / 1000).toFixed(1)} s`)

  const list: LoadRequest[] = [{ method: 'GET', path: '/get-all-notes', headers: auth(tokenOf(user)) }]
  const sides = [
    { label: 'only this user', totalNotes: 20, dir: alone },
    {
      label: `with ${plan.otherUsers} other users`,
      totalNotes: 20 + plan.otherUsers * plan.notesPerOtherUser,
      dir: crowded,
    },
  ].map((side) => ({
    ...side,
    realistic: new LoadTally(),
    serial: new LoadTally(),
    service: undefined as ServiceProcess | undefined,
  }))
  try {
    for (const side of sides) {
      side.service = await start(side.dir, NO_LISTING_CACHE)
      await runLoad(side.service.url, list, REALISTIC, plan.timing.warmup)
    }
    const rounds = plan.quick ? 2 : SCALE_ROUNDS
    const slice = plan.timing.duration / rounds
    for (let round = 0; round < rounds; round++) {
      for (const side of sides) {
        const url = (side.service as ServiceProcess).url
        await runLoad(url, list, REALISTIC, slice, side.realistic)
        await runLoad(url, list, SERIAL, slice, side.serial)
      }
    }
  } finally {
    for (const side of sides) if (side.service) await side.service.stop()
  }
  return sides.map(({ label, totalNotes, realistic, serial }) => {
    const row = { label, totalNotes, realistic: realistic.result(), serial: serial.result() }
    log(`  scale ${label}: ${Math.round(row.realistic.rps)} req/s, 1-conn p50 ${row.serial.p50.toFixed(3)} ms`)
    return row
  })
}
