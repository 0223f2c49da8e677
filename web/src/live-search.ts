// The search's results kept current by live changes. The API says which notes matched as it
// answered; a note changed since (by the change stream, or on this page), or new, is matched on
// this device with the offline search's semantics (sync/offline-search.ts), so that a note that
// starts to match appears and one that stops matching leaves at once. Where the device cannot
// match the pattern (RE2's own forms), the verdict is the API's: the caller asks it again.
// Pure functions (no DOM), unit-tested in test/web-live-search.test.ts.
import type { Note } from './api.js'
import { compareNotes } from './note-order.js'

/** Whether the note matches the search, as this device matches it. */
export type NoteMatcher = (note: Note) => boolean

/** The versions (updatedOn by _id) of the notes the page held as an answer came. */
export const versionsOf = (notes: readonly Note[] | undefined): ReadonlyMap<string, string> =>
  new Map((notes ?? []).map((n) => [n._id, n.updatedOn]))

export interface LiveResults {
  notes: Note[]
  /** A note changed since the answer and the device could not match it: the API must be asked again. */
  undecided: boolean
}

/**
 * The notes of `all` that match the search: the API's `answer` for a note as the answer saw it
 * (its version in the answer, or else in `seen`), `matches` for one changed since or new. A note
 * gone from `all` is gone from the results. In the API's order.
 */
export function liveResults(
  answer: readonly Note[],
  seen: ReadonlyMap<string, string>,
  all: readonly Note[],
  matches: NoteMatcher | undefined,
): LiveResults {
  const answered = new Map(answer.map((n) => [n._id, n.updatedOn]))
  let undecided = false
  const notes = all.filter((note) => {
    const known = answered.get(note._id) ?? seen.get(note._id)
    if (known === note.updatedOn) return answered.has(note._id)
    if (matches) return matches(note)
    undecided = true
    return answered.has(note._id)
  })
  return { notes: notes.sort(compareNotes), undecided }
}
