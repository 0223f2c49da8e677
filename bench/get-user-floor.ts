// How close to the node:http ceiling can GET /get-user come on this machine, given the work the
// contract asks of it? Starts the real service (as the bench does) and, beside it, the ceiling,
// bare Fastify with the same bytes, the ceiling answering at the end of each turn of the event
// loop (as the SQLite service does since its data_version check is shared), and the stripped
// servers of bench/get-user-floor-server.ts (token check only; plus PRAGMA data_version, per
// request or shared; plus the SQLite account read). All are loaded in
// alternating rounds at 32 connections; the table gives each one's req/s and ratio to the
// ceiling. Run: npm run build && node dist/bench/get-user-floor.js   (env ROUNDS=6, SECONDS=4)
// With DATABASE_URL (an admin connection, as for the bench) the service runs on PostgreSQL, in a
// database of its own dropped at the end, and the stripped servers are the token check, plus a
// `SELECT 1` round trip, plus the PostgreSQL store's account lookup (kept in memory while its
// account listener is live, as in the service). One row per store adds @fastify/cors to the least
// work the contract asks (the account's existence, and CORS for any origin).
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LoadTally, REALISTIC, runLoad } from './load.js'
import { captureRoutes } from './measure.js'
import { BenchDatabases } from './postgres-seed.js'
import { type ForkedServer, forkListening, registerAccount, startCeiling, startService } from './processes.js'

const SERVER = fileURLToPath(new URL('./get-user-floor-server.js', import.meta.url))
const LABELS: Record<string, string> = {
  token: 'token check',
  'data-version': 'token check + PRAGMA data_version',
  'shared-data-version': 'token check + PRAGMA data_version shared per turn (as the service)',
  account: 'token check + SQLite account read',
  'pg-select-1': 'token check + PostgreSQL SELECT 1',
  'pg-account': 'token check + PostgreSQL store account lookup (kept in memory)',
}

async function main(): Promise<void> {
  const rounds = Number(process.env.ROUNDS ?? 6)
  const seconds = Number(process.env.SECONDS ?? 4)
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-floor-'))
  const secret = randomBytes(32).toString('hex')
  const adminUrl = process.env.DATABASE_URL
  const databases = adminUrl ? new BenchDatabases(adminUrl) : undefined
  const databaseUrl = databases ? await databases.create(dataDir) : undefined
  const modes = databaseUrl
    ? ['token', 'pg-select-1', 'pg-account', 'pg-account+cors']
    : ['token', 'data-version', 'data-version+cors', 'shared-data-version', 'shared-data-version+cors', 'account']
  const service = await startService({ dataDir, secret, ...(databaseUrl ? { databaseUrl } : {}) })
  const stripped: ForkedServer[] = []
  const ceiling = await startCeiling()
  const deferred = await startCeiling('deferred')
  const fastify = await startCeiling('fastify')
  try {
    const authorization = await registerAccount(service.url, 'Floor', 'floor@bench.example')
    const requests = [{ method: 'GET' as const, path: '/get-user', headers: { authorization } }]
    const routes = await captureRoutes(service.url, requests)
    await ceiling.setRoutes(routes)
    await deferred.setRoutes(routes)
    await fastify.setRoutes(routes)
    const targets: Array<{ label: string; url: string }> = [
      { label: 'ceiling: node:http, precomputed answer', url: ceiling.url },
      { label: 'node:http, precomputed answer sent at the end of the turn (setImmediate)', url: deferred.url },
      { label: 'bare Fastify, precomputed answer', url: fastify.url },
    ]
    for (const mode of modes) {
      const server = await forkListening(SERVER, [mode, dataDir, secret, ...(databaseUrl ? [databaseUrl] : [])], mode)
      stripped.push(server)
      const label = LABELS[mode.replace(/\+cors$/, '')] ?? mode
      targets.push({ label: `Fastify + ${label}${mode.endsWith('+cors') ? ' + @fastify/cors' : ''}`, url: server.url })
    }
    targets.push({ label: 'the service', url: service.url })
    const tallies = targets.map(() => new LoadTally())
    for (const target of targets) await runLoad(target.url, requests, REALISTIC, 1) // warm-up
    for (let round = 0; round < rounds; round++) {
      for (const [i, target] of targets.entries()) await runLoad(target.url, requests, REALISTIC, seconds, tallies[i])
    }
    const ceilingRps = tallies[0]!.result().rps
    console.log(`GET /get-user on ${databaseUrl ? 'PostgreSQL' : 'SQLite'}, 32 connections, ${rounds} alternating rounds of ${seconds} s\n`)
    console.log('| server | req/s | p99 ms | ratio to ceiling | non-2xx |\n|---|---|---|---|---|')
    for (const [i, target] of targets.entries()) {
      const r = tallies[i]!.result()
      console.log(`| ${target.label} | ${Math.round(r.rps).toLocaleString('en-US')} | ${r.p99.toFixed(2)} | ${(r.rps / ceilingRps).toFixed(2)} | ${r.non2xx} |`)
    }
  } finally {
    for (const server of stripped) await server.stop()
    await ceiling.stop()
    await deferred.stop()
    await fastify.stop()
    await service.stop()
    await databases?.dropAll()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`get-user-floor failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
