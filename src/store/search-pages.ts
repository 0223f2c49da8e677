// Search as both drivers run it (docs/search.md). Pages and batches are bounded in notes and in
// characters, so that reading and copying one stays a short step of the main thread.
import type { SearchText, TextMatcher } from './types.js'

export const SEARCH_PAGE_NOTES = 1000

/** About: each ends with the note that reaches it. PostgreSQL's page counts the stored JSON too. */
export const SEARCH_PAGE_CHARS = 1024 * 1024

export interface Candidate extends SearchText {
  id: string
  /** As stored, and as GET /search-notes sends it. */
  json: string
}

/** Candidates in list order, and where the next page starts (none: the last). */
export interface SearchPage<Key> {
  candidates: Candidate[]
  next?: Key
}

/** The matching notes as one JSON array, in list order; a note re-pinned between pages is answered once. */
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
  let matching: { candidates: Candidate[]; matched: Promise<number[]> } | undefined
  let batch: Candidate[] = []
  let batchChars = 0
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
    if (!sent) await new Promise((resolve) => setImmediate(resolve)) // other requests run between pages
    after = page.next
  }
  if (batch.length > 0) await send()
  if (matching) collect(matching.candidates, await matching.matched)
  return `[${found.join(',')}]`
}
