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
 * ends with the note that reaches it. 256 Ki characters: ~170 of the bench's notes, or one of
 * the largest.
 */
export const SEARCH_PAGE_CHARS = 256 * 1024

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
 * (from the first when undefined). A note moved in list order between two pages (re-pinned) may
 * be read twice; it is answered once, where it was first found.
 */
export async function searchInPages<Key>(
  readPage: (after: Key | undefined) => SearchPage<Key> | Promise<SearchPage<Key>>,
  matcher: TextMatcher,
): Promise<Buffer> {
  const found: string[] = []
  const seen = new Set<string>()
  let after: Key | undefined
  for (;;) {
    const page = await readPage(after)
    if (page.candidates.length > 0) {
      for (const i of await matcher.matchPage(page.candidates)) {
        const note = page.candidates[i] as Candidate
        if (seen.has(note.id)) continue
        seen.add(note.id)
        found.push(note.json)
      }
    } else if (page.next !== undefined) {
      // No thread was asked: yield here, so that pages without candidates do not run back to back.
      await new Promise((resolve) => setImmediate(resolve))
    }
    if (page.next === undefined) return Buffer.from(`[${found.join(',')}]`)
    after = page.next
  }
}
