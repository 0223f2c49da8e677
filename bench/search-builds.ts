// A/B of the stores' search between builds, in one process: each build's own store module is
// loaded from its directory, opened on a data set of its own seeded with the bench's notes
// (bench/seed.ts: a user with NOTES notes, every 10th mentioning the grocery list), and the
// builds take turns, round after round, so the machine's drift falls on all alike. Per build and
// query it reports the p50 of one search at a time repeated ("again": the notes unchanged since
// the last search) and of a search right after an edit of one of the user's notes ("after a
// write"), with ratios to the first build (the baseline).
// Run: npm run build && node dist/bench/search-builds.js DIR_A DIR_B [DIR ...]
//      (a build is a directory holding the project with dist/ built, as for ab-builds.js)
//      env NOTES=1000, ROUNDS=4, SEARCHES=100 (per round and kind), DATABASE_URL (PostgreSQL:
//      one bench database per build, dropped at the end; SQLite otherwise, in a temporary directory)
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Store, TextMatcher } from '../src/store/types.js'
import { median } from './measure.js'
import { BenchDatabases } from './postgres-seed.js'
import { LITERAL_QUERY, REGEX_QUERY, makeNotes, makeUser } from './seed.js'

interface Build {
  dir: string
  store: Store
  matchers: TextMatcher[]
  /** Per query: the search times of each kind, in ms. */
  again: number[][]
  afterWrite: number[][]
}

const QUERIES = [LITERAL_QUERY, REGEX_QUERY]

async function open(dir: string, databases: BenchDatabases | undefined, data: string): Promise<Build> {
  const from = (file: string) => import(pathToFileURL(resolve(dir, 'dist/src', file)).href)
  const { compileSearchPattern } = (await from('services/search.js')) as { compileSearchPattern: (q: string) => TextMatcher }
  let store: Store
  if (databases) {
    const { openPostgresStore } = (await from('store/postgres/index.js')) as { openPostgresStore: (o: { url: string }) => Promise<Store> }
    store = await openPostgresStore({ url: await databases.create(data) })
  } else {
    const { openSqliteStore } = (await from('store/sqlite/index.js')) as { openSqliteStore: (o: { dataDir: string }) => Store }
    store = openSqliteStore({ dataDir: data })
  }
  return { dir, store, matchers: QUERIES.map(compileSearchPattern), again: QUERIES.map(() => []), afterWrite: QUERIES.map(() => []) }
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint()
  await run()
  return Number(process.hrtime.bigint() - start) / 1e6
}

async function main(): Promise<void> {
  const dirs = process.argv.slice(2)
  if (dirs.length < 2) throw new Error('usage: node dist/bench/search-builds.js DIR_A DIR_B [DIR ...]')
  const count = Number(process.env.NOTES ?? 1000)
  const rounds = Number(process.env.ROUNDS ?? 4)
  const searches = Number(process.env.SEARCHES ?? 100)
  const databases = process.env.DATABASE_URL ? new BenchDatabases(process.env.DATABASE_URL) : undefined
  const temp = mkdtempSync(join(tmpdir(), 'notes-search-ab-'))
  const builds: Build[] = []
  try {
    const user = makeUser('searcher')
    const notes = [...makeNotes(user._id, count)]
    for (const [i, dir] of dirs.entries()) {
      const build = await open(dir, databases, join(temp, String(i)))
      builds.push(build)
      await build.store.createUser(user)
      await build.store.importNotes(notes)
    }
    const edited = notes[0]
    if (!edited) throw new Error('NOTES must be at least 1')
    for (let round = 0; round < rounds; round++) {
      for (const build of builds) {
        for (const [q, matcher] of build.matchers.entries()) {
          const search = () => build.store.searchNotesJson(user._id, matcher)
          await search() // the first after the last round's writes
          for (let i = 0; i < searches; i++) build.again[q]?.push(await timed(search))
          for (let i = 0; i < searches; i++) {
            await build.store.updateNote(user._id, edited._id, { title: `Edited ${round} ${i}` }, new Date().toISOString())
            build.afterWrite[q]?.push(await timed(search))
          }
        }
      }
    }
    const store = databases ? 'PostgreSQL' : 'SQLite'
    console.log(`${store}, ${count} notes, ${rounds} rounds of ${searches} searches per kind\n`)
    console.log('| build | query | again p50 ms | ratio | after a write p50 ms | ratio |\n|---|---|---|---|---|---|')
    const [base] = builds
    for (const build of builds) {
      for (const [q, query] of QUERIES.entries()) {
        const again = median(build.again[q] ?? [])
        const afterWrite = median(build.afterWrite[q] ?? [])
        const ratio = (mine: number, theirs: number[] | undefined) => (mine / median(theirs ?? [])).toFixed(2)
        console.log(`| ${build.dir} | ${query} | ${again.toFixed(2)} | ${ratio(again, base?.again[q])} | ${afterWrite.toFixed(2)} | ${ratio(afterWrite, base?.afterWrite[q])} |`)
      }
    }
  } finally {
    for (const build of builds) await build.store.close()
    await databases?.dropAll()
    rmSync(temp, { recursive: true, force: true })
  }
}

await main()
