// What the soak runs against, as real processes: two instances of `notes-service serve` on one PostgreSQL database
// with Redis, or one `serve --workers 2` on SQLite; the busy loops beside them; and the chaos they suffer (a worker or
// an instance SIGKILLed and back, the operator's `users revoke-sessions`).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { type ChildServer, startChild } from '../support/child-server.js'
import { startCli } from '../support/cli.js'
import { TEST_SECRET } from '../support/harness.js'
import { TEST_REDIS_URL, type TestDatabase, createTestDatabase } from '../support/services.js'
import type { Random } from './settings.js'

export type StoreName = 'postgresql' | 'sqlite'

export interface Deployment {
  store: StoreName
  /** What the processes are, for the report. */
  description: string
  /** Base URLs that serve now (an instance being restarted is left out). */
  bases(): string[]
  /** The environment the operator's CLI runs with to reach the same store. */
  cliEnv: Record<string, string>
  dataDir: string
  databaseUrl?: string
  /** SIGKILLs a worker (SQLite) or an instance (PostgreSQL), and resolves once it serves again: what was killed. */
  killOne(random: Random): Promise<string>
  /** What the servers logged at level error or above: the causes of a 5xx. */
  serverErrors(): string[]
  /** Stops every process; the data stays until dispose(). */
  stop(): Promise<void>
  dispose(): Promise<void>
}

// The limits a household would never reach but 24 clients on 127.0.0.1 reach in a minute: registrations and login
// failures are counted per client address, and every soak client has the same one. The soak never sends a wrong
// password on purpose; a login that fails is a finding, counted, not a lock-out of every other account.
const SOAK_LIMITS: Record<string, string> = {
  REGISTRATIONS_PER_CLIENT: '1000000',
  DUPLICATE_REGISTRATIONS_PER_CLIENT: '1000000',
  LOGIN_FAILURES_PER_CLIENT: '1000000',
  LOGIN_FAILURES_PER_ACCOUNT: '1000000',
  LOGIN_FAILURES_PER_ACCOUNT_AND_CLIENT: '1000000',
  // A password change that loses a race to another of the same session may be answered as a wrong password; five
  // of those would end the session, a cause of 401 the model would have to guess at.
  PASSWORD_FAILURES_PER_SESSION: '1000',
  LOG_LEVEL: 'error',
}

/** Two instances on one fresh PostgreSQL database, sharing Redis (the change bus, the limiters). */
export async function postgresPair(): Promise<Deployment> {
  const db: TestDatabase = await createTestDatabase()
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-soak-pg-'))
  const env = {
    ...SOAK_LIMITS,
    DATABASE_URL: db.url,
    REDIS_URL: TEST_REDIS_URL,
    ACCESS_TOKEN_SECRET: TEST_SECRET,
    DATABASE_POOL_SIZE: '6',
  }
  const instances: Array<ChildServer | undefined> = await Promise.all(
    [0, 1].map(() => startChild({ dataDir, env, startTimeoutMs: 60_000 })),
  )
  const ports = instances.map((i) => i!.port)
  const everStarted = [...instances] as ChildServer[]
  return {
    store: 'postgresql',
    description: 'two instances of serve on one PostgreSQL database, with Redis',
    bases: () => instances.filter((i): i is ChildServer => i !== undefined).map((i) => i.base),
    cliEnv: { DATABASE_URL: db.url, ACCESS_TOKEN_SECRET: TEST_SECRET, DATA_DIR: dataDir },
    dataDir,
    databaseUrl: db.url,
    async killOne(random) {
      const at = random.below(2)
      const victim = instances[at]
      if (!victim) return 'nothing (an instance is down)'
      instances[at] = undefined
      await victim.kill()
      const restarted = await startChild({ dataDir, env, port: ports[at], startTimeoutMs: 60_000 })
      instances[at] = restarted
      everStarted.push(restarted)
      return `instance ${at + 1} (pid ${victim.pid})`
    },
    serverErrors: () => everStarted.flatMap((i) => errorLines(i.output())),
    async stop() {
      await Promise.all(instances.map(async (i) => i?.stop()))
    },
    async dispose() {
      await db.drop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** The log lines (pino's JSON) at level error (50) or above, each as its message and its error's. */
function errorLines(output: string): string[] {
  const found: string[] = []
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string; code?: string } }
      if ((entry.level ?? 0) >= 50)
        found.push(
          `${entry.msg ?? ''}${entry.err ? `: ${entry.err.code ?? ''} ${entry.err.message ?? ''}` : ''}`.trim(),
        )
    } catch {
      // not a log line
    }
  }
  return found
}

/** The workers of a primary (node:cluster forks them as its children). */
function workersOf(primary: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(primary)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((pid) => pid > 0)
  } catch {
    return [] // ps exits 1 when there is none
  }
}

const LISTENING = /"pid":(\d+)[^\n]*"msg":"Server listening at/g

/**
 * `serve --workers 2` on SQLite. Only a worker that listens is killed: the primary takes a worker that dies before
 * listening for a start-up failure and stops (src/cluster.ts), so the log says which listen (LOG_LEVEL=info; the
 * request lines that come with it are a few MB over a long run).
 */
export async function sqliteWorkers(): Promise<Deployment> {
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-soak-sqlite-'))
  const server = await startChild({
    dataDir,
    env: { ...SOAK_LIMITS, LOG_LEVEL: 'info', WORKERS: '2', ACCESS_TOKEN_SECRET: TEST_SECRET },
    startTimeoutMs: 60_000,
  })
  const listening = () => new Set([...server.output().matchAll(LISTENING)].map((m) => Number(m[1])))
  /** Waits until two workers run and both have said they listen. */
  const settle = async (deadlineMs: number) => {
    const deadline = performance.now() + deadlineMs
    const serving = () => {
      const workers = workersOf(server.pid)
      const said = listening()
      return workers.length === 2 && workers.every((pid) => said.has(pid))
    }
    while (!serving() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100))
  }
  await settle(60_000)
  return {
    store: 'sqlite',
    description: 'serve --workers 2 on SQLite',
    bases: () => [server.base],
    cliEnv: { DATA_DIR: dataDir, ACCESS_TOKEN_SECRET: TEST_SECRET, DATABASE_URL: '' },
    dataDir,
    async killOne(random) {
      const said = listening()
      const workers = workersOf(server.pid).filter((pid) => said.has(pid))
      if (workers.length < 2) return 'nothing (a worker is starting)'
      const victim = random.pick(workers)
      process.kill(victim, 'SIGKILL')
      // The primary forks a new one; the next kill waits until it listens.
      await new Promise((r) => setTimeout(r, 200))
      await settle(60_000)
      return `worker ${victim}`
    },
    serverErrors: () => errorLines(server.output()),
    async stop() {
      await server.stop()
    },
    async dispose() {
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Processes that only burn CPU, so the servers and the soak share the cores with something that never waits. */
export function busyLoops(count: number): { stop(): void } {
  const children: ChildProcess[] = []
  for (let i = 0; i < count; i++) children.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }))
  return {
    stop: () => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    },
  }
}

export interface CliRevocation {
  /** When the command said the sessions had ended (its answer); undefined when it failed. */
  answeredAt?: number
  sentAt: number
  code: number | null
  output: string
}

const CLI_TIMEOUT_MS = 60_000

/** `notes-service users revoke-sessions EMAIL`: the answer is the line saying the sessions ended. */
export async function cliRevoke(env: Record<string, string>, email: string): Promise<CliRevocation> {
  const sentAt = performance.now()
  const child = startCli(['users', 'revoke-sessions', email], env)
  let output = ''
  let answeredAt: number | undefined
  child.stdout!.on('data', (d: Buffer) => {
    output += d.toString()
    if (answeredAt === undefined && output.includes('has ended')) answeredAt = performance.now()
  })
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()))
  // An operator's command that never returns is a finding, not a reason for the soak to wait forever.
  const timer = setTimeout(() => {
    output += `\n(no exit within ${CLI_TIMEOUT_MS / 1000} s: killed)`
    child.kill('SIGKILL')
  }, CLI_TIMEOUT_MS)
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  clearTimeout(timer)
  return { sentAt, code, output, ...(code === 0 && { answeredAt: answeredAt ?? performance.now() }) }
}
