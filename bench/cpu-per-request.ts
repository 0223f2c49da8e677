// Server CPU time per request: steadier than req/s on a shared machine. Starts the built service as the bench does
// (bin/notes-service, fresh DATA_DIR, LOG_LEVEL=warn), registers one user with NOTES notes
// through the API, then for each path runs autocannon (32 connections) and divides the service's
// user + system CPU time (/proc/<pid>/stat) by the requests answered.
// Run: npm run build:bench && node dist-bench/bench/cpu-per-request.js [path ...]
//      (default paths: /get-user /get-all-notes /healthz; env NOTES=20, DURATION=6, and any
//      service setting, e.g. LISTING_CACHE_MB=0, METRICS_ENABLED=false, DATABASE_URL or DATABASE_POOL_SIZE, is passed through)
import { REALISTIC, runLoad } from './load.js'
import { SERVICE_SETTINGS, addNotes, cpuSeconds, startServiceWithUser } from './processes.js'

async function main(): Promise<void> {
  const paths = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['/get-user', '/get-all-notes', '/healthz']
  const notes = Number(process.env.NOTES ?? 20)
  const seconds = Number(process.env.DURATION ?? 6)
  const { service, authorization, stop } = await startServiceWithUser(SERVICE_SETTINGS)
  try {
    const headers = { authorization }
    await addNotes(service.url, authorization, notes)
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
    await stop()
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`cpu-per-request failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
