// Runs the real CLI (src/cli.ts through tsx) as a child process, as a user would.
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, readdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const CLI = ['--import', 'tsx', 'src/cli.ts']

export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
  /** Peak resident memory of the process, or of its largest descendant, in bytes, sampled from /proc every 50 ms (0 when unavailable). */
  peakRss: number
}

export function startCli(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** The process and its descendants (the import runs itself again as a child). */
function processTree(pid: number): number[] {
  let children: number[] = []
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim()
      if (text) children = children.concat(text.split(/\s+/).map(Number))
    }
  } catch {
    return []
  }
  return [pid, ...children.flatMap(processTree)]
}

/** VmHWM: the kernel's record of a process's highest resident set size; the largest in the tree. */
function peakOf(pid: number | undefined): number {
  let peak = 0
  for (const p of pid === undefined ? [] : processTree(pid)) {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))
      if (match) peak = Math.max(peak, Number(match[1]) * 1024)
    } catch {
      // exited between listing and reading
    }
  }
  return peak
}

export async function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  const child = startCli(args, env)
  let stdout = ''
  let stderr = ''
  let peakRss = 0
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  const timer = setInterval(() => (peakRss = Math.max(peakRss, peakOf(child.pid))), 50)
  const [code] = (await once(child, 'exit')) as [number | null]
  clearInterval(timer)
  return { code, stdout, stderr, peakRss }
}

export async function freePort(): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, 'close')
  return port
}
