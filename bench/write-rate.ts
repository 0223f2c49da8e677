// Durable writes per second of one user at 32 connections: add-note, and edit-note of one note
// (every edit waits for the one before it: the note's row lock is held until commit). The edits
// alternate between two texts, so each one changes the note and keeps a revision (docs/history.md).
// Service CPU per write is the service process's own (on PostgreSQL, the database's is not in it). For A/B
// comparisons of a change to the write path, e.g. the previous commit's build and this one in
// alternating runs, each on a fresh database. Starts the built service as the bench does.
// Run: npm run build:bench && node dist-bench/bench/write-rate.js
//      (env DURATION=5, and DATABASE_URL, DATABASE_POOL_SIZE or SQLITE_SYNCHRONOUS passed through)
import { type LoadRequest, REALISTIC, runLoad } from './load.js'
import { cpuSeconds, startServiceWithUser } from './processes.js'

const SERVICE_SETTINGS = ['DATABASE_URL', 'DATABASE_POOL_SIZE', 'SQLITE_SYNCHRONOUS']

async function main(): Promise<void> {
  const seconds = Number(process.env.DURATION ?? 5)
  const { service, authorization, stop } = await startServiceWithUser(SERVICE_SETTINGS)
  try {
    const headers = { authorization, 'content-type': 'application/json' }
    const first = await fetch(`${service.url}/add-note`, { method: 'POST', headers, body: JSON.stringify({ title: 'first', content: 'to edit' }) })
    const { note } = (await first.json()) as { note: { _id: string } }
    const requests: Array<[string, LoadRequest | LoadRequest[]]> = [
      ['add-note', { method: 'POST', path: '/add-note', headers, body: JSON.stringify({ title: 'Bench note', content: 'Written durably.', tags: ['bench'] }) }],
      ['edit-note', [1, 2].map((n) => ({ method: 'PUT', path: `/edit-note/${note._id}`, headers, body: JSON.stringify({ title: `Edited title ${n}`, content: `Edited content ${n}` }) }))],
    ]
    console.log('| scenario | writes/s | p50 ms | p99 ms | service CPU µs per write |\n|---|---|---|---|---|')
    for (const [name, request] of requests) {
      const cycle = Array.isArray(request) ? request : [request]
      await runLoad(service.url, cycle, REALISTIC, 1) // warm-up
      const cpuBefore = cpuSeconds(service.pid)
      const result = await runLoad(service.url, cycle, REALISTIC, seconds)
      const cpuPerWrite = ((cpuSeconds(service.pid) - cpuBefore) / (result.rps * seconds)) * 1e6
      console.log(`| ${name} | ${Math.round(result.rps)} | ${result.p50.toFixed(2)} | ${result.p99.toFixed(2)} | ${cpuPerWrite.toFixed(0)} |`)
    }
  } finally {
    await stop()
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`write-rate failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
