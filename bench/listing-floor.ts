// How close to the node:http ceiling can a cached PostgreSQL listing (GET /get-all-notes, 20
// notes) come on this machine, given that it may only be sent once the database, asked after the
// request arrived, has said it is current (README, "Listings are kept in memory")? Starts the
// real service on PostgreSQL (as the bench does, in a database of its own dropped at the end)
// and, beside it, the ceiling, bare Fastify with the same bytes, and the stripped servers of
// bench/listing-floor-server.ts: the token check with the listing from memory and no check; plus
// a shared `SELECT 1` round trip; plus the store's own shared version check. All are loaded in
// alternating rounds at 32 connections; the table gives each one's req/s, its CPU per request
// (user + system, /proc) and its ratio to the ceiling.
// Run: npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node dist/bench/listing-floor.js
//      (env ROUNDS=6, SECONDS=4, NOTES=20)
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LoadTally, REALISTIC, runLoad } from './load.js'
import { captureRoutes } from './measure.js'
import { BenchDatabases } from './postgres-seed.js'
import { type ForkedServer, addNotes, cpuSeconds, forkListening, registerAccount, startCeiling, startService } from './processes.js'

const SERVER = fileURLToPath(new URL('./listing-floor-server.js', import.meta.url))
const MODES: Array<[mode: string, label: string]> = [
  ['memory', 'Fastify + token check + the listing from memory, no check'],
  ['select-1', 'the same + one `SELECT 1` shared by the requests waiting at once'],
  ['versions', "the same + the store's shared version check instead (as the service)"],
]

interface Target {
  label: string
  url: string
  pid: number | undefined
  tally: LoadTally
  cpu: number
}

async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL
  if (!adminUrl) throw new Error('listing-floor measures the PostgreSQL listing: set DATABASE_URL (an admin connection, as for the bench)')
  const rounds = Number(process.env.ROUNDS ?? 6)
  const seconds = Number(process.env.SECONDS ?? 4)
  const notes = Number(process.env.NOTES ?? 20)
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-listing-floor-'))
  const secret = randomBytes(32).toString('hex')
  const databases = new BenchDatabases(adminUrl)
  const databaseUrl = await databases.create(dataDir)
  const service = await startService({ dataDir, secret, databaseUrl })
  const stripped: ForkedServer[] = []
  const ceiling = await startCeiling()
  const fastify = await startCeiling('fastify')
  try {
    const authorization = await registerAccount(service.url, 'Floor', 'listing-floor@bench.example')
    await addNotes(service.url, authorization, notes)
    const requests = [{ method: 'GET' as const, path: '/get-all-notes', headers: { authorization } }]
    const routes = await captureRoutes(service.url, requests)
    await ceiling.setRoutes(routes)
    await fastify.setRoutes(routes)
    const body = routes[0]!.body // base64
    const targets: Target[] = [
      { label: 'ceiling: node:http, precomputed answer', url: ceiling.url, pid: undefined, tally: new LoadTally(), cpu: 0 },
      { label: 'bare Fastify, precomputed answer', url: fastify.url, pid: undefined, tally: new LoadTally(), cpu: 0 },
    ]
    for (const [mode, label] of MODES) {
      const server = await forkListening(SERVER, [mode, secret, databaseUrl, body], mode)
      stripped.push(server)
      // Every row must send the service's bytes, or it measures something else.
      const res = await fetch(`${server.url}/get-all-notes`, { headers: { authorization } })
      const sent = Buffer.from(await res.arrayBuffer()).toString('base64')
      if (res.status !== 200 || sent !== body) throw new Error(`${mode} answered ${res.status} with other bytes than the service`)
      targets.push({ label, url: server.url, pid: server.child.pid, tally: new LoadTally(), cpu: 0 })
    }
    targets.push({ label: 'the service', url: service.url, pid: service.pid, tally: new LoadTally(), cpu: 0 })
    for (const target of targets) await runLoad(target.url, requests, REALISTIC, 1) // warm-up
    for (let round = 0; round < rounds; round++) {
      for (const target of targets) {
        const before = target.pid === undefined ? 0 : cpuSeconds(target.pid)
        await runLoad(target.url, requests, REALISTIC, seconds, target.tally)
        if (target.pid !== undefined) target.cpu += cpuSeconds(target.pid) - before
      }
    }
    const ceilingRps = targets[0]!.tally.result().rps
    console.log(`GET /get-all-notes (${notes} notes, cached) on PostgreSQL, 32 connections, ${rounds} alternating rounds of ${seconds} s\n`)
    console.log('| server | req/s | p99 ms | CPU µs per request | ratio to ceiling | non-2xx |\n|---|---|---|---|---|---|')
    for (const target of targets) {
      const r = target.tally.result()
      const answered = r.ok + r.non2xx
      const cpu = target.pid === undefined ? '' : ((target.cpu * 1e6) / Math.max(1, answered)).toFixed(1)
      console.log(`| ${target.label} | ${Math.round(r.rps).toLocaleString('en-US')} | ${r.p99.toFixed(2)} | ${cpu} | ${(r.rps / ceilingRps).toFixed(2)} | ${r.non2xx} |`)
    }
  } finally {
    for (const server of stripped) await server.stop()
    await ceiling.stop()
    await fastify.stop()
    await service.stop()
    await databases.dropAll()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`listing-floor failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
