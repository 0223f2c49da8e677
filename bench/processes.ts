// The two processes the bench drives: the real service (built output, `notes-service serve`) and
// the ceiling (a bare node:http server), each its own Node.js process on loopback, plus a
// sampler of the service's resident memory.
import { type ChildProcess, fork, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CeilingRoute } from './ceiling-server.js'

/** The notes-service command, as `npm start` runs it (it sets the allocator's environment). */
const LAUNCHER = fileURLToPath(new URL('../../bin/notes-service', import.meta.url))
const CEILING = fileURLToPath(new URL('./ceiling-server.js', import.meta.url))

/**
 * Every child still running. The bench's signal handler ends it with process.exit(), which runs
 * no `finally`: the children are killed on the way out, so an interrupted run (a SIGTERM from
 * `timeout`, say) leaves no ceiling or service behind.
 */
const running = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})
function tracked(child: ChildProcess): ChildProcess {
  running.add(child)
  child.once('exit', () => running.delete(child))
  return child
}

/** User plus system CPU seconds of a process so far (Linux /proc; clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** Resident set size of a process in bytes (Linux /proc), or undefined elsewhere. */
export function rssOf(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}

/** Samples a process's RSS every 100 ms: the maximum overall and since the last `mark()`. */
export class RssSampler {
  max = 0
  windowMax = 0
  private readonly timer: NodeJS.Timeout
  constructor(private readonly pid: number) {
    this.timer = setInterval(() => this.sample(), 100)
    this.timer.unref()
    this.sample()
  }
  sample(): void {
    const rss = rssOf(this.pid) ?? 0
    this.max = Math.max(this.max, rss)
    this.windowMax = Math.max(this.windowMax, rss)
  }
  /** Returns the window's maximum and starts a new window. */
  mark(): number {
    this.sample()
    const max = this.windowMax
    this.windowMax = 0
    return max
  }
  stop(): void {
    clearInterval(this.timer)
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address ? address.port : 0
      probe.close(() => resolve(port))
    })
  })
}

function exited(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      resolve()
    }, timeoutMs)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
  })
}

export interface ServiceOptions {
  dataDir: string
  secret: string
  /** Passed through: the service selects PostgreSQL when it is set. */
  databaseUrl?: string
  /**
   * Extra node flags, e.g. --cpu-prof (`npm run bench -- --cpu-prof DIR`). Node refuses --cpu-prof in
   * NODE_OPTIONS, so the launcher finds, first on its PATH, a `node` that runs this Node.js with
   * them (nodeWithFlags); the launcher's own flags and environment are kept.
   */
  nodeArgs?: string[]
  /** Extra environment variables (`--service-env`, the A/B scripts' settings). */
  env?: Record<string, string>
  /**
   * The program and arguments that start the CLI in place of this checkout's launcher (ab-builds
   * starts each build's own); `serve` follows.
   */
  command?: string[]
}

export interface ServiceProcess {
  url: string
  pid: number
  rss: RssSampler
  stop(): Promise<void>
}

/**
 * A directory holding a `node` that runs this Node.js with `flags` before its own arguments, for
 * the PATH of the launcher (which runs `node` from PATH); removed when the bench exits.
 */
function nodeWithFlags(flags: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'notes-bench-node-'))
  const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`
  writeFileSync(join(dir, 'node'), `#!/bin/sh\nexec ${[process.execPath, ...flags].map(quote).join(' ')} "$@"\n`, {
    mode: 0o755,
  })
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export async function startService(options: ServiceOptions): Promise<ServiceProcess> {
  const port = await freePort()
  // The launcher runs `node` from PATH: the bench's own Node.js first, with the extra flags if any.
  const nodeDir = options.nodeArgs?.length ? nodeWithFlags(options.nodeArgs) : dirname(process.execPath)
  const env: NodeJS.ProcessEnv = {
    PATH: `${nodeDir}${delimiter}${process.env.PATH ?? ''}`,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: options.dataDir,
    LOG_LEVEL: 'warn',
    ACCESS_TOKEN_SECRET: options.secret,
    // The bench logs in hundreds of times from one address; the throttle would answer 429.
    BRUTE_FORCE_PROTECTION: 'false',
    // One user adds over 100 000 notes in a full run; the quota stays on (the write path
    // measured is the one users get), far above what the bench adds.
    MAX_NOTES_PER_ACCOUNT: '1000000000',
  }
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl
  Object.assign(env, options.env)
  // The launcher execs node: the child's pid is the service's own (its RSS is sampled).
  const [program, ...args] = options.command ?? [LAUNCHER]
  const child = tracked(
    spawn(program as string, [...args, 'serve'], {
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    }),
  )
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 30_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited during start-up (code ${child.exitCode})`)
    try {
      const res = await fetch(`${url}/get-user`)
      await res.arrayBuffer()
      if (res.status === 401) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error('the service did not answer within 30 s')
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const pid = child.pid as number
  const rss = new RssSampler(pid)
  return {
    url,
    pid,
    rss,
    async stop() {
      rss.stop()
      child.kill('SIGTERM')
      await exited(child, 15_000)
    },
  }
}

/** The service settings the A/B scripts pass through from their own environment. */
export const SERVICE_SETTINGS = [
  'LISTING_CACHE_MB',
  'METRICS_ENABLED',
  'LOG_LEVEL',
  'GLIBC_TUNABLES',
  'NODE_OPTIONS',
  'DATABASE_URL',
  'DATABASE_POOL_SIZE',
]

/** Adds `count` small notes through the API (the A/B scripts' 20-note user). */
export async function addNotes(url: string, authorization: string, count: number): Promise<void> {
  const headers = { authorization, 'content-type': 'application/json' }
  for (let i = 0; i < count; i++) {
    const body = JSON.stringify({
      title: `Note ${i} grocery`,
      content: `Some content for note ${i}, meet at 10am`,
      tags: ['a', 'b'],
    })
    await (await fetch(`${url}/add-note`, { method: 'POST', headers, body })).arrayBuffer()
  }
}

/** The password of every account the bench registers (the login scenario logs in with it). */
export const BENCH_PASSWORD = 'correct horse battery staple'

/** Registers an account through the API; returns its Authorization header value. */
export async function registerAccount(url: string, fullName: string, email: string): Promise<string> {
  const created = await fetch(`${url}/create-account`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fullName, email, password: BENCH_PASSWORD }),
  })
  if (created.status !== 200) throw new Error(`create-account answered ${created.status}`)
  const { accessToken } = (await created.json()) as { accessToken: string }
  return `Bearer ${accessToken}`
}

/** A service on a fresh data directory with one user registered through the API. */
export interface ServiceWithUser {
  service: ServiceProcess
  /** The registered user's Authorization header value. */
  authorization: string
  /** Stops the service and removes its data directory. */
  stop: () => Promise<void>
}

/**
 * For the small A/B scripts (cpu-per-request, write-rate): starts the built service with the
 * named settings taken from this process's environment (e.g. DATABASE_URL, LISTING_CACHE_MB),
 * and registers one user with a unique email, so runs can share a database.
 */
export async function startServiceWithUser(settings: readonly string[], command?: string[]): Promise<ServiceWithUser> {
  const env: Record<string, string> = {}
  for (const name of settings) if (process.env[name] !== undefined) env[name] = process.env[name]
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-ab-'))
  const service = await startService({
    dataDir,
    secret: randomBytes(32).toString('hex'),
    env,
    ...(command ? { command } : {}),
  })
  const stop = async () => {
    await service.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    return {
      service,
      authorization: await registerAccount(service.url, 'Bench', `ab.${process.pid}.${Date.now()}@bench.example`),
      stop,
    }
  } catch (err) {
    await stop()
    throw err
  }
}

export interface CeilingProcess {
  url: string
  /** Replaces the answers; resolves once the ceiling has them. */
  setRoutes(routes: CeilingRoute[]): Promise<void>
  stop(): Promise<void>
}

/** A forked bench server: it sends `{port}` over IPC once it listens on 127.0.0.1. */
export interface ForkedServer {
  url: string
  child: ChildProcess
  stop: () => Promise<void>
}

/** Forks `script` (a built bench server) with `args` and waits up to 10 s for its port. */
export async function forkListening(script: string, args: string[], what: string): Promise<ForkedServer> {
  const child = tracked(fork(script, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }))
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start within 10 s`)), 10_000)
    child.once('message', (m: { port: number }) => {
      clearTimeout(timer)
      resolve(m.port)
    })
  })
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: async () => {
      child.kill('SIGTERM')
      await exited(child, 5_000)
    },
  }
}

/** The node:http ceiling, or with `fastify` the bare-Fastify floor (bench/ceiling-server.ts). */
export async function startCeiling(kind: 'node:http' | 'fastify' = 'node:http'): Promise<CeilingProcess> {
  const server = await forkListening(CEILING, kind === 'node:http' ? [] : [`--${kind}`], 'the ceiling')
  return {
    url: server.url,
    setRoutes: (routes) =>
      new Promise((resolve) => {
        server.child.once('message', () => resolve())
        server.child.send({ routes })
      }),
    stop: server.stop,
  }
}
