// Does PostgreSQL's search prefilter pay for testing every required run, not only the longest?
// For users with 1 000 and 10 000 of the bench's seeded notes, in one fresh database
// (BenchDatabases, dropped at the end), each of the bench's two queries is timed with
//   longest: the runs handed to the driver cut to the longest one (what PostgreSQL tested before);
//   all:     the matcher as the search pool makes it (every run, in order: one LIKE).
// The matcher itself (RE2 on a search thread, over what PostgreSQL sends) is the same in both.
// Both give the same answer (checked); the rows that pass the prefilter are what cross the
// network and are turned into records. Alternating rounds, one call at a time (the growth table's
// setting); the table gives the median wall time per search and the ratio all / longest.
// Run: PGURL=postgres://postgres@127.0.0.1:5432/test node --import tsx bench/postgres-search.ts
// Figures depend on the machine and its load: compare the two columns within one run only.
import { SearchPool } from '../src/services/search-pool.js'
import type { Store, TextMatcher } from '../src/store/types.js'
import { withBenchStore } from './postgres-seed.js'
import { LITERAL_QUERY, REGEX_QUERY, makeNotes, makeUser } from './seed.js'

const ADMIN_URL = process.env.PGURL ?? 'postgres://postgres@127.0.0.1:5432/test'
const ROUNDS = 7
const CALLS = 5

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

function longestRunOnly(matcher: TextMatcher): TextMatcher {
  const longest = matcher.runs?.reduce((a, b) => (b.length > a.length ? b : a))
  return longest === undefined ? matcher : { matchPage: (notes) => matcher.matchPage(notes), runs: [longest] }
}

async function msPerCall(search: () => Promise<Buffer>): Promise<number> {
  const started = performance.now()
  for (let i = 0; i < CALLS; i++) await search()
  return (performance.now() - started) / CALLS
}

async function compareFor(store: Store, size: number, query: string, userId: string): Promise<string> {
  const pool = new SearchPool({ threads: 1, queue: 1, timeoutMs: 60_000 })
  const all = pool.start(query)
  const longest = longestRunOnly(all)
  const searchAll = () => store.searchNotesJson(userId, all)
  const searchLongest = () => store.searchNotesJson(userId, longest)
  const answer = await searchAll()
  if (!answer.equals(await searchLongest())) throw new Error(`${query}: the two prefilters answer differently`)
  const times: Record<'all' | 'longest', number[]> = { all: [], longest: [] }
  for (let round = 0; round < ROUNDS; round++) {
    times.longest.push(await msPerCall(searchLongest))
    times.all.push(await msPerCall(searchAll))
  }
  all.end()
  await pool.close()
  const found = (JSON.parse(answer.toString('utf8')) as unknown[]).length
  const [a, l] = [median(times.all), median(times.longest)]
  return `| ${size} | \`${query}\` | ${JSON.stringify(all.runs)} | ${found} | ${l.toFixed(1)} | ${a.toFixed(1)} | ${(a / l).toFixed(2)} |`
}

async function main(): Promise<void> {
  await withBenchStore(ADMIN_URL, 'search', async (store) => {
    console.log('| notes | query | runs | found | longest run ms | all runs ms | ratio |\n|---|---|---|---|---|---|---|')
    for (const size of [1000, 10_000]) {
      const user = makeUser(`search-${size}`)
      await store.createUser(user)
      await store.importNotes([...makeNotes(user._id, size)])
      for (const query of [LITERAL_QUERY, REGEX_QUERY]) console.log(await compareFor(store, size, query, user._id))
    }
  })
}

main().catch((err: unknown) => {
  process.stderr.write(`postgres-search failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
