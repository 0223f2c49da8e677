// Search on the replica while offline, with the API's semantics as far as JavaScript allows: the
// pattern is a case-insensitive regular expression matched against the title and the content
// (docs/search.md). Where RE2 and JavaScript differ is in docs/web-app.md, "Live and offline".
// A pattern this browser's backtracking engine could take far too long on is refused, as the
// highlighting leaves it alone (the one guard, search.ts), in place of the API's time budget.
import type { Note } from '../api.js'
import { backtracksBadly } from '../search.js'

export const TOO_SLOW_OFFLINE =
  'This pattern could take too long to search on this device. Simplify it, or search again when you are back online.'
export const INVALID_OFFLINE =
  'This pattern is not one this device can search offline. Search again when you are back online.'

/** A test of one note against `pattern` (title or content), or the message saying why there is none. */
export function localMatcher(pattern: string): ((note: Note) => boolean) | { error: string } {
  if (backtracksBadly(pattern)) return { error: TOO_SLOW_OFFLINE }
  for (const flags of ['iu', 'i']) {
    try {
      const re = new RegExp(pattern, flags)
      return (n: Note) => re.test(n.title) || re.test(n.content)
    } catch {
      // try the next flags
    }
  }
  return { error: INVALID_OFFLINE }
}

/** The notes (in their order) whose title or content matches `pattern`, or the message saying why not. */
export function localSearch(notes: readonly Note[], pattern: string): { notes: Note[] } | { error: string } {
  const matches = localMatcher(pattern)
  return typeof matches === 'function' ? { notes: notes.filter(matches) } : matches
}
