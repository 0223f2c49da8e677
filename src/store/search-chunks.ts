// Search as both drivers run it (docs/search.md, "How a search runs"): the driver lists the candidates' keys in list
// order (the notes the index names, or every note), then reads them a chunk at a time while RE2 tests the previous
// chunk on a search thread. A chunk's size follows the notes' sizes, so that reading one stays a short step.
import type { SearchText, TextMatcher } from './search.js'

/** About how many characters of title and content one chunk reads. */
export const SEARCH_CHUNK_CHARS = 1024 * 1024
/** The first chunk is read before any note's size is known: small, so that even the largest notes keep it short. */
const FIRST_CHUNK = 16
const MAX_CHUNK = 2000

export interface Candidate extends SearchText {
  /** As stored, and as GET /search-notes sends it. */
  json: string
}

/**
 * The matching notes as one JSON array, in the order of `keys`; a key whose note is gone by its chunk is left out. At
 * least one chunk, empty when there are no keys, goes to the matcher, so that RE2 judges every pattern (400).
 */
export async function searchChunks<Key>(
  keys: readonly Key[],
  readChunk: (keys: Key[]) => Map<Key, Candidate> | Promise<Map<Key, Candidate>>,
  matcher: TextMatcher,
): Promise<string> {
  const found: string[] = []
  let matching: Promise<void> = Promise.resolve()
  let size = FIRST_CHUNK
  let at = 0
  do {
    matcher.timeLeft()
    const wanted = keys.slice(at, at + size)
    at += wanted.length
    const read = wanted.length > 0 ? await readChunk(wanted) : new Map<Key, Candidate>()
    const candidates: Candidate[] = []
    let chars = 0
    for (const key of wanted) {
      const note = read.get(key)
      if (!note) continue
      candidates.push(note)
      chars += note.title.length + note.content.length
    }
    size = Math.max(1, Math.min(MAX_CHUNK, Math.round((wanted.length * SEARCH_CHUNK_CHARS) / Math.max(chars, 1))))
    // This chunk is tested while the next one is read; the answer keeps the chunks' order.
    const matched = matcher.matchPage(candidates)
    matched.catch(() => {})
    const previous = matching
    matching = previous.then(async () => {
      for (const i of await matched) found.push((candidates[i] as Candidate).json)
    })
    matching.catch(() => {})
    await previous
    await new Promise((resolve) => setImmediate(resolve)) // other requests run between chunks
  } while (at < keys.length)
  await matching
  return `[${found.join(',')}]`
}
