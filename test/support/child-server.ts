// Runs the real server as a child process (`node --import tsx src/cli.ts serve`, or the built one
// through bin/notes-service), so tests can
// SIGKILL it, restart it on the same data, and read its RSS and open file descriptors from /proc.
import { type ChildProcess, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from './cli.js'
import { TEST_SEARCH_TIMEOUT_MS, TEST_SECRET } from './harness.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface ChildServer {
  base: string
  port: number
  pid: number
  process: ChildProcess
  /** What the child printed on stderr and stdout so far (for failure messages). */
  output(): string
  /** SIGKILL, then wait until the process is gone. */
  kill(): Promise<void>
  /** SIGTERM and wait for a graceful exit. */
  stop(): Promise<number | null>
}

export interface ChildOptions {
  dataDir: string
  /** Extra environment: the store's selection (DATABASE_URL), limits, log level... */
  env?: Record<string, string>
  /** Reuse a port, e.g. when restarting after a kill. */
  port?: number
  startTimeoutMs?: number
  /**
   * Start through bin/notes-service (what `npm start` runs: the built dist/, the launcher's
   * environment) instead of the TypeScript sources; the build must exist.
   */
  launcher?: boolean
}

/** Starts `notes-service serve` and waits until it answers HTTP. */
export async function startChild(options: ChildOptions): Promise<ChildServer> {
  const port = options.port ?? (await freePort())
  const [command, args] = options.launcher
    ? [join(ROOT, 'bin', 'notes-service'), ['serve']]
    : [process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve']]
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      // The launcher runs `node` from PATH: this Node.js first.
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
      ACCESS_TOKEN_SECRET: TEST_SECRET,
      LOG_LEVEL: 'warn',
      // As in testConfig: a thread's start under tsx is not a search's wait.
      SEARCH_TIMEOUT_MS: String(TEST_SEARCH_TIMEOUT_MS),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr.on('data', (d: Buffer) => (output += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const base = `http://127.0.0.1:${port}`
  const deadline = Date.now() + (options.startTimeoutMs ?? 20_000)
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`server exited during start-up (${child.exitCode ?? child.signalCode}): ${output}`)
    }
    try {
      // Any answer means it listens; an unknown path is the cheapest request (404 JSON).
      await fetch(`${base}/ready-probe`, { signal: AbortSignal.timeout(1000) })
      break
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL')
        throw new Error(`server did not answer within the start timeout: ${output}`)
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  return {
    base,
    port,
    pid: child.pid!,
    process: child,
    output: () => output,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      return exited
    },
  }
}

/** Resident set size of a process, in bytes (Linux /proc). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1]
  return Number(kb ?? 0) * 1024
}

/** Number of open file descriptors of a process (Linux /proc). */
export function fdCountOf(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length
}
