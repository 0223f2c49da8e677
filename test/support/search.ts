// Search patterns as the service runs them, for tests that call a store directly: a pool of
// search threads (src/services/search-pool.ts) that the test closes when it is done.
import { SearchPool } from '../../src/services/search-pool.js'
import type { NoteRecord, Store } from '../../src/store/types.js'
import { searchedNotes } from './listed.js'

/** One thread, a long budget: the answers, not the limits, are under test. */
export function testSearchPool(): SearchPool {
  return new SearchPool({ threads: 1, queue: 64, timeoutMs: 30_000 })
}

/** The store's search for `pattern`, through the pool, as NoteService runs it. */
export async function searchWith<T = NoteRecord[]>(
  pool: SearchPool,
  pattern: string,
  run: (matcher: ReturnType<SearchPool['start']>) => Promise<T>,
): Promise<T> {
  const search = pool.start(pattern)
  try {
    return await run(search)
  } finally {
    search.end()
  }
}

/** The store's search for `pattern`, its notes parsed. */
export const searchNotes = (pool: SearchPool, store: Store, userId: string, pattern: string): Promise<NoteRecord[]> =>
  searchWith(pool, pattern, (matcher) => searchedNotes(store, userId, matcher))
