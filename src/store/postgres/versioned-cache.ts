// What the PostgreSQL store keeps in memory per user, each with the version of the user's notes
// it was read at (migration 4, `note-versions`), read in the same statement, so in one snapshot:
// users' listings (the JSON bytes GET /get-all-notes sends). An entry is used only after the
// database, asked after the request arrived, has answered the same version (note-versions.ts): a
// change made through another instance, an import or an operator's SQL is seen at once, with no
// notice to wait for.
// https://www.postgresql.org/docs/current/transaction-iso.html#XACT-READ-COMMITTED
import { LRUCache } from 'lru-cache'
import { largestEntry } from '../cache-limits.js'

export interface Versioned<Kept> {
  version: string
  kept: Kept
}

export class VersionedCache<Kept> {
  private readonly entries: LRUCache<string, Versioned<Kept>>

  /** `maxBytes`: the total size of the entries, each measured by `sizeOf`. */
  constructor(maxBytes: number, sizeOf: (kept: Kept) => number) {
    this.entries = new LRUCache<string, Versioned<Kept>>({
      maxSize: maxBytes,
      // One very long list must not push out everybody else's.
      maxEntrySize: largestEntry(maxBytes),
      sizeCalculation: (entry) => Math.max(1, sizeOf(entry.kept) + entry.version.length),
    })
  }

  /** The user's entry as last read, which the caller must check against the database. */
  get(userId: string): Versioned<Kept> | undefined {
    return this.entries.get(userId)
  }

  /**
   * Keeps what was read with its version. Two reads may finish out of order and the older may be
   * kept: harmless, since no entry is used before its version is checked.
   */
  set(userId: string, version: string, kept: Kept): void {
    this.entries.set(userId, { version, kept })
  }
}
