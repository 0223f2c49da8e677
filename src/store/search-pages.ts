// Search as both drivers run it: the driver reads the user's notes in list order, a page at a
// time, leaving out those that cannot match (TextMatcher.runs); the matcher says which of the
// page's notes match (on a search thread, services/search-pool.ts); the matches' stored JSON
// (migration 2 of each driver) is joined into the answer, so no record is made or stringified.
//
// A page, and a batch sent to a thread, is bounded in notes and in characters, so that reading
// one, and copying its texts to a search thread, stays a short step of the main thread even when
// notes are as large as the limits allow (title 1 000, content 100 000 characters): the main
// thread yields between pages.
import type { TextMatcher } from './types.js'

/** The most notes a driver reads for one page, and a batch holds. */
export const SEARCH_PAGE_NOTES = 1000

/**
 * The characters a page and a batch hold, about: each ends with the note that reaches it. A
 * batch and SQLite's page count titles and contents (the text read into JS); PostgreSQL's page
 * counts the stored JSON too (what crosses the connection). 1 Mi characters: more than
 * SEARCH_PAGE_NOTES of the bench's notes, or ten of the largest.
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
 * (from the first when undefined), with a yield to the event loop between pages. Pages' candidates
 * are gathered into one batch for a search thread until the batch holds SEARCH_PAGE_NOTES notes
 * or SEARCH_PAGE_CHARS characters (a selective pattern sends one batch for many pages), and the
 * next batch is read while the last is matched, so the main thread's reading and a thread's
 * matching overlap. A note moved in list order between two pages (re-pinned) may be read twice;
 * it is answered once, where it was first found.
 */
export async function searchInPages<Key>(
  readPage: (after: Key | undefined) => SearchPage<Key> | Promise<SearchPage<Key>>,
  matcher: TextMatcher,
): Promise<string> {
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
  /** The batch being matched, if any. */
  let matching: { candidates: Candidate[]; matched: Promise<number[]> } | undefined
  let batch: Candidate[] = []
  let batchChars = 0
  /** Sends the batch to a thread, then waits for the one before it. */
  const send = async () => {
    const previous = matching
    const matched = matcher.matchPage(batch)
    // Awaited after the previous batch; a rejection meanwhile must not count as unhandled.
    matched.catch(() => {})
    matching = { candidates: batch, matched }
    batch = []
    batchChars = 0
    if (previous) collect(previous.candidates, await previous.matched)
  }
  let after: Key | undefined
  for (;;) {
    const page = await readPage(after)
    let sent = false
    for (const note of page.candidates) {
      batch.push(note)
      batchChars += note.title.length + note.content.length
      if (batch.length >= SEARCH_PAGE_NOTES || batchChars >= SEARCH_PAGE_CHARS) {
        await send()
        sent = true
      }
    }
    if (page.next === undefined) break
    if (!sent) await new Promise((resolve) => setImmediate(resolve))
    after = page.next
  }
  if (batch.length > 0) await send()
  if (matching) collect(matching.candidates, await matching.matched)
  return `[${found.join(',')}]`
}
