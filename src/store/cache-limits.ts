// The bound both drivers' listing caches share (sqlite/listing-cache.ts, postgres/versioned-cache.ts).

/** The largest entry a cache of `maxBytes` keeps: an eighth, so one very long list cannot push out everybody else's. */
export function largestEntry(maxBytes: number): number {
  return Math.max(1, Math.floor(maxBytes / 8))
}
