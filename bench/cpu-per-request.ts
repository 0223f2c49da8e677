// Server CPU time per request: steadier than req/s on a shared machine, and what the README's
// "What the profiles showed" figures are. Starts the built service as the bench does
// (bin/notes-service, fresh DATA_DIR, LOG_LEVEL=warn), registers one user with NOTES notes
// through the API, then for each path runs autocannon (32 connections) and divides the service's
// user + system CPU time (/proc/<pid>/stat) by the requests answered.
// Run: npm run build && node dist/bench/cpu-per-request.js [path ...]
//      (default paths: /get-user /get-all-notes /healthz; env NOTES=20, DURATION=6, and any
//      service setting, e.g. LISTING_CACHE_MB=0, METRICS_ENABLED=false, DATABASE_URL or DATABASE_POOL_SIZE, is passed through)
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REALISTIC, runLoad } from './load.js'
import { startService } from './processes.js'

/** User plus system CPU seconds of a process so far (Linux /proc; clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) / 100
}

const SERVICE_SETTINGS = ['LISTING_CACHE_MB', 'METRICS_ENABLED', 'GLIBC_TUNABLES', 'NODE_OPTIONS', 'DATABASE_URL', 'DATABASE_POOL_SIZE']

async function main(): Promise<void> {
  const paths = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['/get-user', '/get-all-notes', '/healthz']
  const notes = Number(process.env.NOTES ?? 20)
  const seconds = Number(process.env.DURATION ?? 6)
  const env: Record<string, string> = {}
  for (const name of SERVICE_SETTINGS) if (process.env[name] !== undefined) env[name] = process.env[name]
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-cpu-'))
  const service = await startService({ dataDir, secret: randomBytes(32).toString('hex'), env })
  try {
    const json = { 'content-type': 'application/json' }
    const created = await fetch(`${service.url}/create-account`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ fullName: 'Bench', email: `cpu.${process.pid}.${Date.now()}@bench.example`, password: 'correct horse battery staple' }),
    })
    const { accessToken } = (await created.json()) as { accessToken: string }
    const headers = { authorization: `Bearer ${accessToken}` }
    for (let i = 0; i < notes; i++) {
      const body = JSON.stringify({ title: `Note ${i} grocery`, content: `Some content for note ${i}, meet at 10am`, tags: ['a', 'b'] })
      await (await fetch(`${service.url}/add-note`, { method: 'POST', headers: { ...headers, ...json }, body })).arrayBuffer()
    }
    console.log('| path | server CPU µs per request | req/s | p99 ms |\n|---|---|---|---|')
    for (const path of paths) {
      const request = { method: 'GET' as const, path, headers }
      await runLoad(service.url, [request], REALISTIC, 1) // warm-up
      const before = cpuSeconds(service.pid)
      const result = await runLoad(service.url, [request], REALISTIC, seconds)
      const micros = ((cpuSeconds(service.pid) - before) * 1e6) / Math.max(1, result.ok + result.non2xx)
      console.log(`| ${path} | ${micros.toFixed(1)} | ${Math.round(result.rps)} | ${result.p99.toFixed(2)} |`)
    }
  } finally {
    await service.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`cpu-per-request failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
