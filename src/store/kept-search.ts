// A user's notes kept in memory for search, by both drivers. A search reads every note of its
// user and tests most of them; reading them from the database was most of its cost (SQLite: the
// rows and one call into JS per note, 1.6-1.9 ms per search over 1 000 notes in-process where
// the same notes in memory took 0.35-0.5; PostgreSQL: the candidates' rows sent over the
// connection, 5-6 ms per search over 1 000 notes on a machine where PostgreSQL alone took 1.4). A client that searches searches again (each keystroke, a refined
// query) over notes that have not changed, so the notes are kept per user with the title and
// content RE2 tests and the stored JSON sent for a match, and a search is one pass over memory.
//
// Kept only while unchanged, checked the same way as the drivers' kept listings: SQLite drops a
// user's notes inside every write's transaction and everything on another connection's commit
// (listing-cache.ts, data-version.ts); PostgreSQL keeps them with the version of the user's notes
// and uses them only after the database, asked after the request arrived, answers that version
// (note-versions.ts). A user whose notes take more than an eighth of the cache is not kept: the
// drivers' own queries search those.
//
// Reading every note to keep costs more than one search by the drivers' own queries (SQLite: 2.3
// against 1.0 ms over 1 000 notes; bench/search-builds.ts), so the notes are read to be kept only
// at the second search over unchanged notes: the first after a change is answered by the query
// and leaves SEARCHED_ONCE. A user who writes between searches pays nothing for the cache.
import type { TextMatcher } from './types.js'

/** One note as search keeps it: RE2 tests title and content; the stored JSON is sent when either matches. */
export interface SearchableNote {
  title: string
  content: string
  json: string
}

/**
 * What a kept entry holds: the user's notes in list order, or word that they were too many to
 * keep, or that they were searched once, by the driver's query, since they last changed.
 */
export type KeptSearch = readonly SearchableNote[] | typeof TOO_LARGE | typeof SEARCHED_ONCE

/** Marks a user whose notes were too large to keep, so that they are not read in full again. */
export const TOO_LARGE = 'too large'

/** Marks a user searched once since their notes changed: the next search reads them to keep. */
export const SEARCHED_ONCE = 'searched once'

/**
 * Notes tested between two yields to the event loop: a pattern RE2 must test on every note
 * (no run of plain characters for the prefilter) takes a few microseconds per note, and a
 * search over tens of thousands must not stall every other request meanwhile (issue 5).
 */
export const KEPT_SEARCH_STEP = 1000

/** Memory added per kept note beyond its text: the object and three string headers, about. */
export const NOTE_OVERHEAD_BYTES = 80

/** The size a note counts for against the cache's bound (its text's characters, plus overhead). */
export function searchableBytes(note: SearchableNote): number {
  return note.title.length + note.content.length + note.json.length + NOTE_OVERHEAD_BYTES
}

/** The bytes a kept entry counts for: a marker counts as one note's overhead. */
export function keptSearchBytes(kept: KeptSearch): number {
  if (typeof kept === 'string') return NOTE_OVERHEAD_BYTES
  let bytes = 0
  for (const note of kept) bytes += searchableBytes(note)
  return Math.max(1, bytes)
}

/** The largest entry a cache of `maxBytes` keeps, as for listings: an eighth. */
export function largestKept(maxBytes: number): number {
  return Math.max(1, Math.floor(maxBytes / 8))
}

/** The kept notes the matcher accepts, as the JSON array GET /search-notes sends, in list order. */
export async function searchKept(notes: readonly SearchableNote[], matcher: TextMatcher): Promise<Buffer> {
  const found: string[] = []
  for (let i = 0; i < notes.length; i++) {
    if (i > 0 && i % KEPT_SEARCH_STEP === 0) await new Promise((resolve) => setImmediate(resolve))
    const note = notes[i] as SearchableNote
    if (matcher.test(note.title) || matcher.test(note.content)) found.push(note.json)
  }
  return Buffer.from(`[${found.join(',')}]`)
}
