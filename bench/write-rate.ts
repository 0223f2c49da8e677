// Durable writes per second of one user at 32 connections: add-note, and edit-note of one note
// (every edit waits for the one before it: the note's row lock is held until commit). For A/B
// comparisons of a change to the write path, e.g. the previous commit's build and this one in
// alternating runs, each on a fresh database. Starts the built service as the bench does.
// Run: npm run build && node dist/bench/write-rate.js
//      (env DURATION=5, and DATABASE_URL, DATABASE_POOL_SIZE or SQLITE_SYNCHRONOUS passed through)
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type LoadRequest, REALISTIC, runLoad } from './load.js'
import { startService } from './processes.js'

const SERVICE_SETTINGS = ['DATABASE_URL', 'DATABASE_POOL_SIZE', 'SQLITE_SYNCHRONOUS']

async function main(): Promise<void> {
  const seconds = Number(process.env.DURATION ?? 5)
  const env: Record<string, string> = {}
  for (const name of SERVICE_SETTINGS) if (process.env[name] !== undefined) env[name] = process.env[name]
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-writes-'))
  const service = await startService({ dataDir, secret: randomBytes(32).toString('hex'), env })
  try {
    const json = { 'content-type': 'application/json' }
    const created = await fetch(`${service.url}/create-account`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ fullName: 'Bench', email: `writes.${process.pid}.${Date.now()}@bench.example`, password: 'correct horse battery staple' }),
    })
    const { accessToken } = (await created.json()) as { accessToken: string }
    const headers = { authorization: `Bearer ${accessToken}`, ...json }
    const first = await fetch(`${service.url}/add-note`, { method: 'POST', headers, body: JSON.stringify({ title: 'first', content: 'to edit' }) })
    const { note } = (await first.json()) as { note: { _id: string } }
    const requests: [string, LoadRequest][] = [
      ['add-note', { method: 'POST', path: '/add-note', headers, body: JSON.stringify({ title: 'Bench note', content: 'Written durably.', tags: ['bench'] }) }],
      ['edit-note', { method: 'PUT', path: `/edit-note/${note._id}`, headers, body: JSON.stringify({ title: 'Edited title', content: 'Edited content' }) }],
    ]
    console.log('| scenario | writes/s | p50 ms | p99 ms |\n|---|---|---|---|')
    for (const [name, request] of requests) {
      await runLoad(service.url, [request], REALISTIC, 1) // warm-up
      const result = await runLoad(service.url, [request], REALISTIC, seconds)
      console.log(`| ${name} | ${Math.round(result.rps)} | ${result.p50.toFixed(2)} | ${result.p99.toFixed(2)} |`)
    }
  } finally {
    await service.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`write-rate failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
