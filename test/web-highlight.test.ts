// Where the web app marks a search's matches (web/src/highlight.ts): patterns and texts drawn by
// fast-check from an alphabet with case pairs, accents and emoji (two UTF-16 units each), then the
// edge cases as examples: empty matches, RE2-only syntax, patterns shaped for backtracking, HTML
// in the pattern, and the caps on the work.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import RE2 from 're2'
import {
  HIGHLIGHT_LIMIT,
  MARKS_PER_CARD,
  type Range,
  highlighter,
  matchRanges,
  segments,
} from '../web/src/highlight.js'
import { escapeRegex } from '../web/src/search.js'

const LETTERS = ['a', 'A', 'b', 'é', 'É', 'σ', 'Σ', 'ς', '😀', '🙂', ' ', '<', '>']
const text = fc.string({ unit: fc.constantFrom(...LETTERS), maxLength: 60 })

/** A literal character, escaped where the pattern syntax needs it. */
const literal = fc.constantFrom(...LETTERS).map(escapeRegex)
const atom = fc.oneof(literal, fc.constantFrom('.', '[aé]', '[^a ]', '\\w', '\\W', '\\s', '[😀-🙂]'))
const quantified = fc.tuple(atom, fc.constantFrom('', '', '?', '*', '+', '{0,2}', '{2}')).map(([a, q]) => a + q)
const sequence = fc.array(quantified, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''))
/**
 * Patterns without anchors, look-arounds or `\b`: whether a piece of text matches them does not
 * depend on what is around it. Some are refused by the backtracking guard and mark nothing.
 */
const pattern = fc.oneof(
  sequence,
  fc.array(sequence, { minLength: 2, maxLength: 3 }).map((alternatives) => alternatives.join('|')),
  fc.tuple(sequence, sequence).map(([a, b]) => `(?:${a})${b}`),
)

const isSurrogatePair = (t: string, i: number) =>
  /[\uD800-\uDBFF]/.test(t[i - 1] ?? '') && /[\uDC00-\uDFFF]/.test(t[i] ?? '')

/** Every non-empty match, in JavaScript's own iteration (which steps over empty ones by code point). */
function allMatches(t: string, expression: RegExp): Range[] {
  return [...t.matchAll(expression)]
    .filter((m) => m[0].length > 0)
    .map((m) => ({ start: m.index, end: m.index + m[0].length }))
}

describe('the ranges marked in a note', () => {
  it('are in order, non-empty, apart, within the text, on code point edges, each a match, and every match up to the cap', () => {
    fc.assert(
      fc.property(pattern, text, fc.integer({ min: 1, max: 8 }), (p, t, maxMarks) => {
        const expression = highlighter(p)
        const ranges = matchRanges(t, expression, maxMarks)
        if (!expression) return assert.deepEqual(ranges, [])
        let at = 0
        for (const { start, end } of ranges) {
          assert.ok(
            at <= start && start < end && end <= t.length,
            `${JSON.stringify({ start, end })} after ${at} in ${t.length}`,
          )
          assert.ok(!isSurrogatePair(t, start) && !isSurrogatePair(t, end), 'no emoji cut in half')
          const piece = t.slice(start, end)
          assert.ok(new RegExp(`^(?:${p})$`, 'iu').test(piece), `${JSON.stringify(piece)} matches ${p}`)
          assert.ok(new RE2(`^(?:${p})$`, 'iu').test(piece), `${JSON.stringify(piece)} matches ${p} in RE2, as the API`)
          at = end
        }
        assert.deepEqual(ranges, allMatches(t, expression).slice(0, maxMarks))
      }),
      { numRuns: 3000 },
    )
  })

  it('cut the text into pieces that, joined, are the text itself, the marked ones the ranges', () => {
    fc.assert(
      fc.property(pattern, fc.string({ unit: 'binary', maxLength: 40 }), (p, t) => {
        const ranges = matchRanges(t, highlighter(p))
        const pieces = segments(t, ranges)
        assert.equal(pieces.map((piece) => piece.text).join(''), t)
        assert.ok(pieces.every((piece) => piece.text.length > 0))
        assert.deepEqual(
          pieces.filter((piece) => piece.marked).map((piece) => piece.text),
          ranges.map(({ start, end }) => t.slice(start, end)),
        )
      }),
      { numRuns: 2000 },
    )
  })

  it('mark what was typed, case aside, in a literal search', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 4 }),
        fc.string({ maxLength: 200 }),
        (typed, t) => {
          const ranges = matchRanges(t, highlighter(escapeRegex(typed)), Infinity)
          for (const { start, end } of ranges) assert.equal(t.slice(start, end).toLowerCase(), typed.toLowerCase())
          assert.equal(ranges.length, allMatches(t, new RegExp(escapeRegex(typed), 'giu')).length)
        },
      ),
    )
    assert.deepEqual(matchRanges('Meeting at 10am, meet at 3pm', highlighter('meet(ing)? at \\d+(am|pm)')), [
      { start: 0, end: 15 },
      { start: 17, end: 28 },
    ])
  })

  it('match by code point and case-insensitively, as the API does', () => {
    assert.deepEqual(matchRanges('😀x', highlighter('.')), [
      { start: 0, end: 2 },
      { start: 2, end: 3 },
    ])
    const sigmas = 'Σσς'
    assert.equal(matchRanges(sigmas, highlighter('σ')).length, 3)
    // The Kelvin sign folds to k only under the `u` flag, as in RE2.
    assert.deepEqual(matchRanges('\u212A', highlighter('k')), [{ start: 0, end: 1 }])
  })
})

describe('what is not marked', () => {
  it('an empty match: passed over by code point, never looping, never marking nothing', () => {
    assert.deepEqual(matchRanges('bbb', highlighter('a*')), [])
    assert.deepEqual(matchRanges('baab', highlighter('a*')), [{ start: 1, end: 3 }])
    assert.deepEqual(matchRanges('x😀y', highlighter('a*')), [])
    assert.deepEqual(matchRanges('😀aa😀a', highlighter('a*|x')), [
      { start: 2, end: 4 },
      { start: 6, end: 7 },
    ])
    assert.deepEqual(matchRanges('abc', highlighter('(?:)')), [])
  })

  it("a pattern JavaScript cannot compile with the u flag, RE2's own forms included", () => {
    for (const p of [
      '(',
      '(?i)abc',
      '\\pL',
      '[[:alpha:]]',
      '\\Qa.b\\E',
      '(?P<name>a)',
      'a\\z',
      '\\Aa',
      'a{,2}',
      '\\-',
    ]) {
      assert.equal(highlighter(p), undefined, p)
      assert.deepEqual(matchRanges('abc a.b [a]', highlighter(p)), [], p)
    }
  })

  it('a pattern this browser would backtrack on for too long (the offline search refuses the same ones)', () => {
    for (const p of ['(a+)+$', '(x|y*)*z', '(\\d{2,})+x', '((ab)*)+', '(a|aa)+b', 'a*a*a*b', '\\w+\\s*x']) {
      assert.equal(highlighter(p), undefined, p)
    }
    for (const p of [
      'a.b',
      'meet(ing)? at \\d+(am|pm)',
      '\\bword\\b',
      '[a-z]+',
      '\\d{3}-\\d{4}',
      '[*+]+',
      '\\(a\\)+',
    ]) {
      assert.ok(highlighter(p), p)
    }
  })

  it('no more than the cap of marks, and nothing past the first HIGHLIGHT_LIMIT characters', () => {
    assert.equal(matchRanges('a'.repeat(1000), highlighter('.')).length, MARKS_PER_CARD)
    assert.equal(matchRanges('a'.repeat(1000), highlighter('.'), 3).length, 3)
    assert.deepEqual(matchRanges('abc', highlighter('.'), 0), [])
    assert.deepEqual(matchRanges(`${'a'.repeat(HIGHLIGHT_LIMIT)}b`, highlighter('b')), [])
    assert.deepEqual(matchRanges(`${'a'.repeat(HIGHLIGHT_LIMIT - 1)}b`, highlighter('b')), [
      { start: HIGHLIGHT_LIMIT - 1, end: HIGHLIGHT_LIMIT },
    ])
    // The limit never cuts an emoji in half: one that straddles it is left out whole.
    assert.deepEqual(matchRanges(`${'a'.repeat(HIGHLIGHT_LIMIT - 1)}😀`, highlighter('😀|\\uD83D')), [])
    // The worst shape the guard lets through, on a long note: only its start is searched.
    assert.deepEqual(matchRanges('a'.repeat(100_000), highlighter('a.*b')), [])
  })

  it('HTML in the pattern is only text to match', () => {
    const marked = (t: string, p: string) => matchRanges(t, highlighter(p)).map(({ start, end }) => t.slice(start, end))
    // As a pattern, `(1)` is a group matching "1".
    assert.deepEqual(marked('see <img src=x onerror=alert1> and <b>', '<img src=x onerror=alert(1)>|b'), [
      '<img src=x onerror=alert1>',
      'b',
    ])
    const typed = '<img src=x onerror=alert(1)>'
    assert.deepEqual(marked(`see ${typed} and <b>`, escapeRegex(typed)), [typed])
  })
})
