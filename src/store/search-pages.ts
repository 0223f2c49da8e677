// Search as both drivers run it: the driver reads the user's notes in list order, a page at a
// time, leaving out those that cannot match (TextMatcher.runs); the matcher says which of the
// page's notes match (on a search thread, services/search-pool.ts); the matches' stored JSON
// (migration 2 of each driver) is joined into the answer, so no record is made or stringified.
//
// A page is bounded in notes and in characters, so that reading one, and copying its texts to a
// search thread, stays a short step of the main thread even when notes are as large as the
// limits allow (title 1 000, content 100 000 characters): the main thread yields between pages.
import type { TextMatcher } from './types.js'

/** The most notes a driver reads for one page. */
export const SEARCH_PAGE_NOTES = 1000

/**
 * The characters of title, content and stored JSON a driver reads for one page, about: a page
 * ends with the note that reaches it. 1 Mi characters: SEARCH_PAGE_NOTES of the bench's notes,
 * or five of the largest.
 */
export const SEARCH_PAGE_CHARS = 1024 * 1024

/** A note that may match, as a driver reads it for search. */
export interface Candidate {
  id: string
  title: string
  content: string
  /** The note's stored JSON text, as GET /search-notes sends it. */
  json: string
}

/** One page: its candidates in list order, and where the next page starts (none: the last). */
export interface SearchPage<Key> {
  candidates: Candidate[]
  next?: Key
}

/**
 * The matching notes as one JSON array, in list order. `readPage` reads the page after `after`
 * (from the first when undefined). A page is read while the one before it is being matched, so
 * the main thread's reading and a search thread's matching overlap. A note moved in list order
 * between two pages (re-pinned) may be read twice; it is answered once, where it was first found.
 */
export async function searchInPages<Key>(
  readPage: (after: Key | undefined) => SearchPage<Key> | Promise<SearchPage<Key>>,
  matcher: TextMatcher,
): Promise<Buffer> {
  const found: string[] = []
  const seen = new Set<string>()
  const collect = (candidates: Candidate[], matched: number[]) => {
    for (const i of matched) {
      const note = candidates[i] as Candidate
      if (seen.has(note.id)) continue
      seen.add(note.id)
      found.push(note.json)
    }
  }
  /** The page being matched, if any. */
  let matching: { candidates: Candidate[]; matched: Promise<number[]> } | undefined
  let after: Key | undefined
  try {
    for (;;) {
      const page = await readPage(after)
      const previous = matching
      matching = undefined
      if (page.candidates.length > 0) {
        const matched = matcher.matchPage(page.candidates)
        // Awaited below, after the previous page; a rejection meanwhile must not count as unhandled.
        matched.catch(() => {})
        matching = { candidates: page.candidates, matched }
      }
      if (previous) collect(previous.candidates, await previous.matched)
      else if (!matching && page.next !== undefined) {
        // Nothing to wait for: yield here, so that pages without candidates do not run back to back.
        await new Promise((resolve) => setImmediate(resolve))
      }
      if (page.next === undefined) break
      after = page.next
    }
    if (matching) collect(matching.candidates, await matching.matched)
  } finally {
    // A page still being matched when the search fails is not waited for (search-pool.ts ends it).
    matching = undefined
  }
  return Buffer.from(`[${found.join(',')}]`)
}
