// A/B of peak RSS: each build serves the sequence where the full bench's SQLite RSS peaks, a
// fresh process per build and round, alternating. The sequence is the bench's second service
// (store-bench.ts): the listing cache off, 20-note listings at 32 connections, then users of 10 to
// 10 000 notes one request at a time (listing, literal search, regex search; 1 s warm-up and 3 s
// each). A full bench takes nine minutes and shows one peak; this shows the peak of each step.
// Run: npm run build:bench && node dist-bench/bench/memory-ab.js DIR_A DIR_B [DIR ...]
//      (each DIR a checkout with dist/ built, started by its own bin/notes-service, as npm start
//      does); env ROUNDS=2, SIZES=10,100,1000,10000, WARM_UP=8 (seconds of 32-connection listings),
//      DATABASE_URL=postgres://… to run it on PostgreSQL (a database of its own, dropped after).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { publicUser } from '../src/services/accounts.js'
import { createTokenService } from '../src/services/tokens.js'
import type { UserRecord } from '../src/store/types.js'
import { type LoadRequest, REALISTIC, SERIAL, runLoad } from './load.js'
import { BenchDatabases, PostgresSeeder } from './postgres-seed.js'
import { startService } from './processes.js'
import { LITERAL_QUERY, REGEX_QUERY, SqliteSeeder, makeNotes, makeUser } from './seed.js'
import { searchPath, seed } from './store-bench.js'

const mb = (bytes: number) => Math.round(bytes / 2 ** 20)

async function main(): Promise<void> {
  const dirs = process.argv.slice(2)
  if (dirs.length < 2) throw new Error('usage: node dist-bench/bench/memory-ab.js DIR_A DIR_B [DIR ...]')
  const rounds = Number(process.env.ROUNDS ?? 2)
  const sizes = (process.env.SIZES ?? '10,100,1000,10000').split(',').map(Number)
  const warmUp = Number(process.env.WARM_UP ?? 8)

  const secret = 'memory-ab-secret-that-is-at-least-32-bytes'
  const tokens = createTokenService(secret)
  const authorization = (u: UserRecord) => ({ authorization: `Bearer ${tokens.issue(publicUser(u))}` })
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-memory-ab-'))
  const reader = makeUser('reader-20')
  const growth = sizes.map((n) => ({ n, user: makeUser(`growth-${n}`) }))
  const databases = process.env.DATABASE_URL ? new BenchDatabases(process.env.DATABASE_URL) : undefined
  const seeder = databases ? new PostgresSeeder(await databases.create(dataDir)) : new SqliteSeeder(dataDir)
  await seed(
    seeder,
    [reader, ...growth.map((g) => g.user)],
    [makeNotes(reader._id, 20), ...growth.map((g) => makeNotes(g.user._id, g.n))],
  )
  await databases?.settle(dataDir)
  const databaseUrl = databases?.urlOf(dataDir)

  const peaks = new Map<string, number[]>(dirs.map((d) => [d, []]))
  try {
    for (let round = 0; round < rounds; round++) {
      for (const dir of dirs) {
        const service = await startService({
          dataDir,
          databaseUrl,
          secret,
          env: { LISTING_CACHE_MB: '0' },
          command: [resolve(dir, 'bin/notes-service')],
        })
        const steps: string[] = []
        const mark = (label: string) => steps.push(`${label} ${mb(service.rss.mark())}`)
        try {
          await runLoad(
            service.url,
            [{ method: 'GET', path: '/get-all-notes', headers: authorization(reader) }],
            REALISTIC,
            warmUp,
          )
          mark('32 conn')
          for (const { n, user } of growth) {
            const headers = authorization(user)
            const paths = { list: '/get-all-notes', literal: searchPath(LITERAL_QUERY), regex: searchPath(REGEX_QUERY) }
            for (const [what, path] of Object.entries(paths)) {
              const req: LoadRequest = { method: 'GET', path, headers }
              await runLoad(service.url, [req], SERIAL, 1)
              await runLoad(service.url, [req], SERIAL, 3)
              mark(`${n} ${what}`)
            }
          }
        } finally {
          await service.stop()
        }
        peaks.get(dir)?.push(mb(service.rss.max))
        console.log(
          `${dir}, round ${round + 1}: peak ${mb(service.rss.max)} MB; MB at the end of each step: ${steps.join(', ')}`,
        )
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
    await databases?.dropAll()
  }
  console.log('\n| build | peak RSS MB, each round |\n|---|---|')
  for (const [dir, values] of peaks) console.log(`| ${dir} | ${values.join(', ')} |`)
}

main().catch((err: unknown) => {
  process.stderr.write(`memory-ab failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
