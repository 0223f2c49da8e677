// The web app's search results under live changes (web/src/live-search.ts): whatever changes reach the page after the
// API answered (edits, new notes, deletions, pins), the results shown are the notes that match now, in the API's order;
// a note the device cannot match keeps the API's verdict and asks the API again.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import type { Note } from '../web/src/api.js'
import { liveResults, versionsOf } from '../web/src/live-search.js'
import { compareNotes } from '../web/src/note-order.js'
import { localMatcher } from '../web/src/sync/offline-search.js'

type Change =
  | { kind: 'edit'; pick: number; title: string; content: string }
  | { kind: 'add'; title: string; content: string }
  | { kind: 'delete' | 'pin'; pick: number }

const text = fc.constantFrom('', 'apple', 'Banana', 'grape', 'APPLE pie', 'pineapple')
const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant('edit' as const), pick: fc.nat(20), title: text, content: text }),
  fc.record({ kind: fc.constant('add' as const), title: text, content: text }),
  fc.record({ kind: fc.constantFrom('delete' as const, 'pin' as const), pick: fc.nat(20) }),
)

let clock = 0
const stamp = () => new Date(Date.UTC(2026, 0, 1) + ++clock).toISOString()
const note = (id: string, title: string, content: string): Note => {
  const at = stamp()
  return { _id: id, title, content, tags: [], isPinned: false, userId: 'u', createdOn: at, updatedOn: at }
}

/** The page's notes after the changes (an edit makes a new version, a pin does not). */
function apply(notes: Note[], changes: Change[]): Note[] {
  let list = [...notes]
  for (const c of changes) {
    if (c.kind === 'add') list.push(note(`n${++clock}`, c.title, c.content))
    else if (list.length > 0) {
      const target = list[c.pick % list.length]!
      if (c.kind === 'edit') {
        const edited = { ...target, title: c.title, content: c.content, updatedOn: stamp() }
        list = list.map((n) => (n === target ? edited : n))
      } else if (c.kind === 'delete') list = list.filter((n) => n !== target)
      else list = list.map((n) => (n === target ? { ...n, isPinned: !n.isPinned } : n))
    }
  }
  return list.sort(compareNotes)
}

const matcherOf = (pattern: string) => {
  const m = localMatcher(pattern)
  assert.equal(typeof m, 'function')
  return m as (n: Note) => boolean
}

describe('search results under live changes', () => {
  it('are the notes that match now, in the API order, whatever changed after the answer', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(text, text), { maxLength: 8 }),
        fc.constantFrom('apple', 'an', 'pi', '^gr'),
        fc.array(change, { maxLength: 12 }),
        (start, pattern, changes) => {
          const before = start.map(([title, content], i) => note(`s${i}`, title, content)).sort(compareNotes)
          const matches = matcherOf(pattern)
          // The API answers with the same semantics for these patterns.
          const answer = before.filter(matches)
          const now = apply(before, changes)
          const shown = liveResults(answer, versionsOf(before), now, matches)
          assert.deepEqual(shown.notes, now.filter(matches))
          assert.equal(shown.undecided, false)
        },
      ),
      { numRuns: 500 },
    )
  })

  it('without a matcher on this device keeps the API verdict, and says when a changed note needs the API again', () => {
    const a = note('a', 'apple', '')
    const b = note('b', 'grape', '')
    const answer = [a]
    const seen = versionsOf([a, b])
    assert.deepEqual(liveResults(answer, seen, [a, b], undefined), { notes: [a], undecided: false })
    const pinned = { ...b, isPinned: true }
    assert.deepEqual(
      liveResults(answer, seen, [a, pinned], undefined),
      { notes: [a], undecided: false },
      'a pin is no new text',
    )
    const edited = { ...b, title: 'apple', updatedOn: stamp() }
    assert.deepEqual(liveResults(answer, seen, [a, edited], undefined), { notes: [a], undecided: true })
    assert.deepEqual(
      liveResults(answer, seen, [edited, a].sort(compareNotes), matcherOf('apple')).notes,
      [edited, a].sort(compareNotes),
    )
  })

  it('takes the answer for a version the page has not received yet, once it arrives', () => {
    const old = note('a', 'grape', '')
    const newer = { ...old, title: 'apple', updatedOn: stamp() }
    // The API saw the newer version; the stream has not brought it yet.
    const answer = [newer]
    const seen = versionsOf([old])
    const never = () => false
    assert.deepEqual(
      liveResults(answer, seen, [newer], never).notes,
      [newer],
      "the API's verdict on the version it saw",
    )
  })
})
