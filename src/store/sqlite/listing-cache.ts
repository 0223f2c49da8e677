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
// instead (postgres/listing-cache.ts).
import { LRUCache } from 'lru-cache'

export class ListingCache {
  private readonly entries: LRUCache<string, Buffer>
  /** Bumped by every drop and clear: a read that overlapped one must not be stored. */
  private generation = 0

  /** `maxBytes`: the total size of the cached listings. */
  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, Buffer>({
      maxSize: maxBytes,
      // One very long list must not push out everybody else's.
      maxEntrySize: Math.max(1, Math.floor(maxBytes / 8)),
      sizeCalculation: (json) => Math.max(1, json.length),
    })
  }

  /**
   * The user's cached listing, or `read()`'s answer, stored when no write overlapped it. The
   * caller has checked for other connections' commits first (data-version.ts).
   */
  async get(userId: string, read: () => Promise<Buffer>): Promise<Buffer> {
    const hit = this.entries.get(userId)
    if (hit !== undefined) return hit
    const generation = this.generation
    const json = await read()
    // A listing longer than one page yields between pages; a write may have landed meanwhile.
    if (generation === this.generation) this.entries.set(userId, json)
    return json
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
