// What the cache layer keeps: each entry with the version it was read at. An entry is used only
// while the database, asked after the request arrived, still answers that version.
import { LRUCache } from 'lru-cache'

export interface Versioned<Kept> {
  version: string
  kept: Kept
}

/** Entries bounded in number (accounts, sessions). */
export function keptByCount<Kept extends object>(max: number): LRUCache<string, Versioned<Kept>> {
  return new LRUCache<string, Versioned<Kept>>({ max })
}

/** The largest entry a cache of `maxBytes` keeps: an eighth, so one very long listing cannot push out everybody else's. */
export function largestEntry(maxBytes: number): number {
  return Math.max(1, Math.floor(maxBytes / 8))
}

/** Listings (JSON bytes) bounded in total size. */
export function keptBySize(maxBytes: number): LRUCache<string, Versioned<Buffer>> {
  return new LRUCache<string, Versioned<Buffer>>({
    maxSize: maxBytes,
    maxEntrySize: largestEntry(maxBytes),
    sizeCalculation: (entry) => Math.max(1, entry.kept.length + entry.version.length),
  })
}
