// The search benchmark's corpus (bench/search-index/corpus.ts): the shares of notes each pattern finds
// are what the benchmark's report is read against, and the same seed gives the same text.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { SEARCH_PATTERNS, makeSearchNotes } from '../bench/search-index/corpus.js'

const NOTES = [...makeSearchNotes('user', 10_000)]

/** The percentage of the notes whose title or content matches the benchmark's pattern `query`. */
function share(query: string): number {
  const pattern = SEARCH_PATTERNS.find((p) => p.query === query)
  assert.ok(pattern, `no pattern ${query}`)
  return (
    (NOTES.filter((n) => pattern.matches.test(n.title) || pattern.matches.test(n.content)).length / NOTES.length) * 100
  )
}

function assertBetween(value: number, low: number, high: number, what: string): void {
  assert.ok(value >= low && value <= high, `${what}: ${value.toFixed(2)} %, expected ${low}–${high} %`)
}

describe('search benchmark corpus', () => {
  it('gives each pattern its share of notes', () => {
    assertBetween(share('meeting at 11am'), 0.5, 1.5, '"meeting at 11am"')
    // Its own 1 % and the notes of "meeting at 11am".
    assertBetween(share('meet(ing)? at 1[0-9] ?(am|pm)'), 1.5, 3, 'the meeting-time regex')
    assertBetween(share('grocery'), 7, 9, '"grocery"')
    assertBetween(share('q'), 25, 50, '"q"')
    assertBetween(share('\\d+'), 25, 50, 'digits')
    assertBetween(share('σίσυφος'), 0.2, 1, '"σίσυφος"')
    assertBetween(share('STRASSE|straße'), 0.5, 2, '"STRASSE|straße"')
  })

  it('varies the case of "meeting at 11am" and matches both spellings of Straße', () => {
    const meetings = new Set(NOTES.flatMap((n) => /meeting at 11am/i.exec(n.content) ?? []))
    assert.ok(meetings.size >= 3, `spellings: ${[...meetings].join(', ')}`)
    assert.ok(NOTES.some((n) => n.content.includes('straße')))
    assert.ok(NOTES.some((n) => /strasse/i.test(n.content)))
  })

  it('writes notes of about 200 to 600 characters', () => {
    const lengths = NOTES.map((n) => n.content.length)
    assert.ok(Math.min(...lengths) >= 200, `shortest ${Math.min(...lengths)}`)
    assert.ok(Math.max(...lengths) <= 700, `longest ${Math.max(...lengths)}`)
  })

  it('writes the same text for the same seed', () => {
    const again = [...makeSearchNotes('user', 100)]
    assert.deepEqual(
      again.map((n) => [n.title, n.content]),
      NOTES.slice(0, 100).map((n) => [n.title, n.content]),
    )
  })
})
