// Users' listings (the JSON bytes GET /get-all-notes sends) kept in memory by the PostgreSQL
// store, each with the version of the user's notes it was read at (migration 4,
// `note-versions`), read in the same statement as the listing, so in one snapshot. An entry is
// sent only after the database, asked after the request arrived, has answered the same version
// (note-versions.ts): a change made through another instance, an import or an operator's SQL is
// seen at once, with no notice to wait for.
// https://www.postgresql.org/docs/current/transaction-iso.html#XACT-READ-COMMITTED
import { LRUCache } from 'lru-cache'

export interface VersionedListing {
  version: string
  json: Buffer
}

export class VersionedListingCache {
  private readonly entries: LRUCache<string, VersionedListing>

  /** `maxBytes`: the total size of the cached listings. */
  constructor(maxBytes: number) {
    this.entries = new LRUCache<string, VersionedListing>({
      maxSize: maxBytes,
      // One very long list must not push out everybody else's.
      maxEntrySize: Math.max(1, Math.floor(maxBytes / 8)),
      sizeCalculation: (entry) => Math.max(1, entry.json.length + entry.version.length),
    })
  }

  /** The user's listing as last read, which the caller must check against the database. */
  get(userId: string): VersionedListing | undefined {
    return this.entries.get(userId)
  }

  /**
   * Keeps a listing read with its version. Two reads may finish out of order and the older may
   * be kept: harmless, since no entry is used before its version is checked.
   */
  set(userId: string, version: string, json: Buffer): void {
    this.entries.set(userId, { version, json })
  }
}
