// A/B of the account endpoints whose cost is argon2id: POST /login and PUT /change-password of
// several builds side by side, in alternating rounds (ab-builds.ts's method, so the machine's
// drift falls on all builds alike), reporting each build's requests/s with its ratio to the first
// build (the baseline), p50 and p99 latency, non-2xx answers and service CPU per request. Each
// round's req/s goes to stderr as it ends; the table adds the median of the rounds' ratios, which
// another program's burst of work in one round moves less than the ratio of the totals.
// A build is a directory holding the project with `dist/` built (this checkout, or a git worktree
// of an earlier commit after `npm run build` there; the worktree may symlink node_modules here).
// Run: npm run build:bench && node dist-bench/bench/account-rate.js DIR_A DIR_B [DIR ...]
//      e.g. node dist-bench/bench/account-rate.js ../baseline .
//      A build may name node flags after its directory, `DIR:--flag,--flag`, as in ab-builds.
//      env ROUNDS=10, DURATION=3 (seconds per build, endpoint and round: many short rounds, since
//      on a busy machine the rate of one 5 s round varied by half), WARM_UP=1 (seconds),
//      CONNECTIONS=8 (workers per endpoint, each one request at a time), LOGIN_USERS=100 (at least
//      CONNECTIONS), PROCESSES=1 (fresh processes per build, one after another),
//      ENDPOINTS=login,change-password (either alone, or both),
//      DATABASE_URL=postgres://… to run on PostgreSQL (a database of its own per process, dropped
//      after), and the service settings of ab-builds (LOG_LEVEL, GLIBC_TUNABLES, ...) for all.
//
// What is measured is what people run:
// - Each build is started by its own bin/notes-service, as `npm start` does: the launcher's
//   glibc settings change an argon2id hash's time (bin/notes-service), so starting dist/ directly
//   would measure another cost.
// - The argon2id cost is the config's default (the tool sets none), and brute-force protection is
//   on (startService turns it off for the other tools; here its checks are part of both measured
//   paths; BRUTE_FORCE_PROTECTION=false in this tool's environment turns it off). Only correct
//   passwords are sent, and successes count toward no limit. A build that counts a login before
//   verifying it (giving the point back when right) counts the logins in flight, all from
//   127.0.0.1: so CONNECTIONS stays under LOGIN_FAILURES_PER_CLIENT (100), and the workers take
//   distinct accounts, each far under LOGIN_FAILURES_PER_ACCOUNT_AND_CLIENT (10) at a time.
// - Every account is registered through the API up front (login needs a real argon2id hash, and
//   seeding with this checkout's migrations could not serve an older build's schema), all from
//   127.0.0.1: LOGIN_USERS + CONNECTIONS of them, which may pass REGISTRATIONS_PER_CLIENT's 300
//   an hour, so the tool raises that setting. Registration is not measured, and neither measured
//   path reads that counter.
// - login: the workers take the LOGIN_USERS accounts in turn, so in a default run no account
//   reaches its cap of 100 sessions (pruning the least recently used is not what most logins do).
// - change-password: one account per worker, so no two changes of one account race. Each worker
//   alternates its account between two passwords of at least 8 characters that differ (what the
//   server's rules accept) with the token it registered with (a change keeps the caller's
//   session). A non-2xx answer means the bench is wrong: it is counted, the worker logs in again to
//   learn which password holds, and the run stops when most answers of a round fail.
// The service runs CPUs − 1 argon2 computations at a time, so with 8 workers a request's latency
// is mostly its wait for a slot: p50 and p99 show the queue that load builds, and the service CPU
// per request is the figure least moved by other programs on the machine.
// The load is this file's own loop over fetch (keep-alive): autocannon sends each connection the
// same requests, and these bodies alternate per worker. A round ends when every request it sent
// is answered, so the next build's round starts on an idle service without waiting for one.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { LoadTally } from './load.js'
import { BenchDatabases } from './postgres-seed.js'
import {
  BENCH_PASSWORD,
  SERVICE_SETTINGS,
  type ServiceProcess,
  cpuSeconds,
  registerAccount,
  startService,
} from './processes.js'

/** The two passwords a change-password worker alternates between: each at least 8 characters, different. */
const PASSWORDS = [BENCH_PASSWORD, 'staple battery horse correct'] as const

const other = (current: 0 | 1): 0 | 1 => (current === 0 ? 1 : 0)

const ENDPOINTS = ['login', 'change-password'] as const
type Endpoint = (typeof ENDPOINTS)[number]

interface Tally {
  load: LoadTally
  /** Service CPU seconds over the measured rounds (argon2 runs on the service's own threads). */
  cpu: number
  /** Each measured round's 2xx answers per second, in order (rounds of every process). */
  rates: number[]
}

interface Build {
  /** The argument as given, which names the build in the tables. */
  name: string
  dir: string
  /** Node flags before the launcher's own. */
  flags: string[]
  tallies: Record<Endpoint, Tally>
}

/** A change-password worker's account: its token and which of PASSWORDS it has now. */
interface Changer {
  email: string
  authorization: string
  current: 0 | 1
}

/** One started build: the service, its data directory and its accounts. */
interface Running {
  service: ServiceProcess
  dataDir: string
  loginEmails: string[]
  changers: Changer[]
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const json = (value: unknown) => JSON.stringify(value)
const headersFor = (authorization?: string) => ({
  'content-type': 'application/json',
  ...(authorization ? { authorization } : {}),
})

/** Sends one request and reads the whole answer; the status and body, or throws on a transport error. */
async function send(
  url: string,
  method: 'POST' | 'PUT',
  body: string,
  authorization?: string,
): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method,
    headers: headersFor(authorization),
    body,
    signal: AbortSignal.timeout(60_000),
  })
  return { status: res.status, text: await res.text() }
}

/** Counts of one round, to stop the run when most answers fail, with the first failure to show. */
class RoundCheck {
  ok = 0
  failed = 0
  first: string | undefined
  fail(what: string): void {
    this.failed++
    this.first ??= what
  }
}

/** Registers an account for each email, four at a time (argon2 bounds the rate anyway); their Authorization values. */
async function registerAll(url: string, emails: string[]): Promise<string[]> {
  const tokens: string[] = new Array<string>(emails.length)
  let next = 0
  const worker = async () => {
    for (let i = next++; i < emails.length; i = next++) tokens[i] = await registerAccount(url, `Bench ${i}`, emails[i]!)
  }
  await Promise.all(Array.from({ length: 4 }, worker))
  return tokens
}

/**
 * After a failed change the worker's password is unknown (a change may have happened with the
 * answer lost): it logs in with each, and keeps the token and the one that works.
 */
async function relogin(url: string, changer: Changer): Promise<void> {
  for (const current of [changer.current, other(changer.current)]) {
    const { status, text } = await send(
      `${url}/login`,
      'POST',
      json({ email: changer.email, password: PASSWORDS[current] }),
    )
    if (status === 200) {
      changer.authorization = `Bearer ${(JSON.parse(text) as { accessToken: string }).accessToken}`
      changer.current = current
      return
    }
  }
  throw new Error(`change-password: neither password logs ${changer.email} in any more`)
}

/**
 * Runs one endpoint against one build for `seconds`: CONNECTIONS workers, each sending its next
 * request when the last is answered. The time counted runs until the last answer. Returns the
 * round's 2xx answers per second.
 */
async function runEndpoint(
  endpoint: Endpoint,
  r: Running,
  connections: number,
  seconds: number,
  tally?: Tally,
): Promise<number> {
  const url = r.service.url
  const load = tally?.load ?? new LoadTally()
  const check = new RoundCheck()
  const cpuBefore = cpuSeconds(r.service.pid)
  const began = performance.now()
  const deadline = began + seconds * 1000
  let nextLogin = 0
  /** Tallies an answer; true when it is a 2xx. */
  const answered = (status: number, text: string, startedAt: number): boolean => {
    if (status >= 200 && status < 300) {
      load.ok++
      check.ok++
      load.micros.record(Math.max(1, Math.round((performance.now() - startedAt) * 1000)))
      return true
    }
    load.non2xx++
    check.fail(`${status} ${text.slice(0, 200)}`)
    return false
  }
  const failed = (err: unknown) => {
    load.errors++
    check.fail(String(err))
  }
  const loginWorker = async () => {
    while (performance.now() < deadline) {
      const email = r.loginEmails[nextLogin++ % r.loginEmails.length]!
      const body = json({ email, password: BENCH_PASSWORD })
      const startedAt = performance.now()
      try {
        const { status, text } = await send(`${url}/login`, 'POST', body)
        answered(status, text, startedAt)
      } catch (err) {
        failed(err)
      }
    }
  }
  const changeWorker = async (changer: Changer) => {
    while (performance.now() < deadline) {
      const body = json({ currentPassword: PASSWORDS[changer.current], newPassword: PASSWORDS[other(changer.current)] })
      const startedAt = performance.now()
      let ok = false
      try {
        const { status, text } = await send(`${url}/change-password`, 'PUT', body, changer.authorization)
        ok = answered(status, text, startedAt)
      } catch (err) {
        failed(err)
      }
      if (ok) changer.current = other(changer.current)
      else await relogin(url, changer)
    }
  }
  await Promise.all(
    endpoint === 'login' ? Array.from({ length: connections }, loginWorker) : r.changers.map(changeWorker),
  )
  const elapsed = (performance.now() - began) / 1000
  load.seconds += elapsed
  if (tally) tally.cpu += cpuSeconds(r.service.pid) - cpuBefore
  if (check.failed > check.ok) {
    throw new Error(
      `${endpoint}: ${check.failed} of ${check.failed + check.ok} requests failed; the first: ${check.first}`,
    )
  }
  return check.ok / elapsed
}

async function main(): Promise<void> {
  const dirs = process.argv.slice(2)
  if (dirs.length < 2) throw new Error('usage: node dist-bench/bench/account-rate.js DIR_A DIR_B [DIR ...]')
  const rounds = Number(process.env.ROUNDS ?? 10)
  const seconds = Number(process.env.DURATION ?? 3)
  const warmUp = Number(process.env.WARM_UP ?? 1)
  // argon2 runs CPUs − 1 at a time in the service: 8 workers keep every slot busy on machines of
  // up to 9 CPUs, and a request waits behind at most 7 others.
  const connections = Number(process.env.CONNECTIONS ?? 8)
  const loginUsers = Number(process.env.LOGIN_USERS ?? 100)
  const processes = Number(process.env.PROCESSES ?? 1)
  const endpoints = (process.env.ENDPOINTS ?? ENDPOINTS.join(',')).split(',') as Endpoint[]
  for (const e of endpoints)
    if (!ENDPOINTS.includes(e)) throw new Error(`ENDPOINTS: unknown endpoint ${e} (${ENDPOINTS.join(', ')})`)
  if (!(connections >= 1 && rounds >= 1 && seconds > 0))
    throw new Error('CONNECTIONS, ROUNDS and DURATION must be positive')
  // Fewer accounts than workers would put several logins of one account in flight at once, which
  // a build that counts attempts before verifying them may refuse (see the top of this file).
  if (!(loginUsers >= connections)) throw new Error('LOGIN_USERS must be at least CONNECTIONS')

  // The service's settings from this environment; DATABASE_URL is the admin connection here, and
  // each process gets a database of its own.
  const env: Record<string, string> = {
    BRUTE_FORCE_PROTECTION: process.env.BRUTE_FORCE_PROTECTION ?? 'true',
    REGISTRATIONS_PER_CLIENT: '1000000',
  }
  for (const name of SERVICE_SETTINGS)
    if (name !== 'DATABASE_URL' && process.env[name] !== undefined) env[name] = process.env[name]
  const databases = process.env.DATABASE_URL ? new BenchDatabases(process.env.DATABASE_URL) : undefined

  const tally = (): Tally => ({ load: new LoadTally(), cpu: 0, rates: [] })
  const tallies = () => ({ login: tally(), 'change-password': tally() })
  const builds: Build[] = dirs.map((arg, i) => {
    const [dir, flags] = arg.split(':')
    // A build given twice (the same against itself, to see the noise) is told apart by its place.
    const name = dirs.indexOf(arg) === i ? arg : `${arg} (${i + 1})`
    return { name, dir: dir as string, flags: flags ? flags.split(',') : [], tallies: tallies() }
  })
  /** Each build's process of the current repetition, in the order of `builds`. */
  const running: Running[] = []
  const stopAll = async () => {
    for (const r of running.splice(0)) {
      await r.service.stop()
      rmSync(r.dataDir, { recursive: true, force: true })
    }
  }
  try {
    for (let p = 0; p < processes; p++) {
      for (const b of builds) {
        const dataDir = mkdtempSync(join(tmpdir(), 'notes-account-rate-'))
        const databaseUrl = databases ? await databases.create(dataDir) : undefined
        const service = await startService({
          dataDir,
          databaseUrl,
          secret: 'account-rate-secret-that-is-at-least-32-bytes',
          env,
          nodeArgs: b.flags,
          command: [resolve(b.dir, 'bin/notes-service')],
        }).catch((err: unknown) => {
          rmSync(dataDir, { recursive: true, force: true })
          throw err
        })
        const r: Running = { service, dataDir, loginEmails: [], changers: [] }
        running.push(r)
        r.loginEmails = Array.from({ length: loginUsers }, (_, i) => `login.${i}@bench.example`)
        await registerAll(service.url, r.loginEmails)
        const changeEmails = Array.from({ length: connections }, (_, i) => `change.${i}@bench.example`)
        const tokens = await registerAll(service.url, changeEmails)
        r.changers = changeEmails.map((email, i) => ({ email, authorization: tokens[i]!, current: 0 }))
      }
      for (const e of endpoints) for (const r of running) await runEndpoint(e, r, connections, warmUp)
      for (let round = 0; round < rounds; round++) {
        // Every other round runs the builds in the reverse order, so none always follows another.
        const order = round % 2 === 0 ? builds.map((_, i) => i) : builds.map((_, i) => builds.length - 1 - i)
        for (const e of endpoints) {
          const rates: string[] = []
          for (const i of order) {
            const rate = await runEndpoint(e, running[i]!, connections, seconds, builds[i]!.tallies[e])
            builds[i]!.tallies[e].rates.push(rate)
            rates.push(`${builds[i]!.name} ${rate.toFixed(1)}`)
          }
          // Each round's rates as it ends: the spread between rounds is the noise the ratios carry.
          process.stderr.write(`process ${p + 1}, round ${round + 1}, ${e} req/s: ${rates.join(', ')}\n`)
        }
      }
      await stopAll()
    }
  } finally {
    await stopAll()
    await databases?.dropAll()
  }

  const store = databases ? 'PostgreSQL' : 'SQLite'
  console.log(
    `${store}, ${connections} workers per endpoint (one request at a time each), ${processes} process(es) per build, each ${rounds} alternating rounds of ${seconds} s`,
  )
  for (const e of endpoints) {
    const first = builds[0]!.tallies[e]
    const baseline = first.load.result().rps
    console.log(`\n${e === 'login' ? 'POST /login' : 'PUT /change-password'}\n`)
    console.log(
      "| build | req/s | ratio to the first | median of the rounds' ratios | p50 ms | p99 ms | non-2xx | errors | service CPU ms per request |\n|---|---|---|---|---|---|---|---|---|",
    )
    for (const b of builds) {
      const { load, cpu, rates } = b.tallies[e]
      const r = load.result()
      // Another program's burst of work slows whichever build runs then: the median of the
      // per-round ratios leaves such a round out, where the ratio of the totals carries it.
      const roundRatio = median(rates.map((rate, i) => rate / first.rates[i]!))
      const perRequest = (cpu * 1000) / Math.max(1, r.ok + r.non2xx)
      console.log(
        `| ${b.name} | ${r.rps.toFixed(1)} | ${(r.rps / baseline).toFixed(2)} | ${roundRatio.toFixed(2)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.non2xx} | ${r.errors} | ${perRequest.toFixed(1)} |`,
      )
    }
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`account-rate failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
