// A cache of users' listings (the JSON bytes GET /get-all-notes sends) for the embedded store.
// Most requests of a notes client read the whole list again while nothing changed, and reading
// and encoding 20 notes costs the service more than everything else in the request together
// (bench/results/report.md). The answer is kept per user, in memory, bounded in size.
//
// Never stale: every change to a user's notes made through this connection drops that user's
// entry inside the write's transaction, before anything is acknowledged; a change made by any
// other connection (another worker process, `notes-service import`) is seen through SQLite's
// data_version, which the store checks before every lookup (data-version.ts), and clears the
// whole cache (https://www.sqlite.org/pragma.html#pragma_data_version). PostgreSQL has no such
// signal between instances; its driver asks for a version of the user's notes on every request
// instead (postgres/versioned-cache.ts).
import { LRUCache } from 'lru-cache'
import { largestEntry } from '../cache-limits.js'

export class ListingCache<Kept extends NonNullable<unknown>> {
  private readonly entries: LRUCache<string, Kept>
  /** Bumped by every drop and clear: a read that overlapped one must not be stored. */
  private generation = 0

  /** `maxBytes`: the total size of the cached entries, each measured by `sizeOf`. */
  constructor(maxBytes: number, sizeOf: (kept: Kept) => number) {
    this.entries = new LRUCache<string, Kept>({
      maxSize: maxBytes,
      // One very long list must not push out everybody else's.
      maxEntrySize: largestEntry(maxBytes),
      sizeCalculation: (kept) => Math.max(1, sizeOf(kept)),
    })
  }

  /**
   * The user's cached listing, or `read()`'s answer, stored when no write overlapped it. The
   * caller has checked for other connections' commits first (data-version.ts).
   */
  async get(userId: string, read: () => Promise<Kept>): Promise<Kept> {
    return this.entries.get(userId) ?? this.read(userId, read)
  }

  /** `read()`'s answer, stored (in place of any entry) when no write overlapped it. */
  async read(userId: string, read: () => Promise<Kept>): Promise<Kept> {
    const generation = this.generation
    const kept = await read()
    // A listing longer than one page yields between pages; a write may have landed meanwhile.
    if (generation === this.generation) this.entries.set(userId, kept)
    return kept
  }

  /** Forgets one user's listing: called inside every transaction that changes their notes. */
  drop(userId: string): void {
    this.generation++
    this.entries.delete(userId)
  }

  clear(): void {
    this.generation++
    this.entries.clear()
  }

  /** Entries held now (tests). */
  get size(): number {
    return this.entries.size
  }
}
