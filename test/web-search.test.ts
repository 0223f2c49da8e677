// The web app's search helpers (web/src/search.ts) and its reading of the API's failures
// (web/src/api.ts): what the search box sends and the message a person reads. The highlighting is
// in test/web-highlight.test.ts.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import RE2 from 're2'
import { describeWait, failureMessage } from '../web/src/api.js'
import { escapeRegex, searchPattern } from '../web/src/search.js'

describe('literal search (the default)', () => {
  it('sends a pattern that the API (RE2, flags iu, as src/services/search.ts) matches as the literal text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 1 }),
        fc.string({ unit: 'grapheme' }),
        fc.string({ unit: 'grapheme' }),
        (typed, before, after) => {
          const pattern = escapeRegex(typed)
          const re = new RE2(pattern, 'iu')
          assert.ok(re.test(`${before}${typed}${after}`), 'the text itself is found inside anything')
          assert.ok(new RE2(`^${pattern}$`, 'u').test(typed), 'and matches exactly itself')
        },
      ),
      { numRuns: 500 },
    )
  })

  it('finds the text where it occurs and nowhere else (ASCII, where case folding is plain)', () => {
    const ascii = fc.string({ unit: fc.constantFrom(...'ab.*+?^$()[]{}|\\ -/'.split('')), maxLength: 6 })
    fc.assert(
      fc.property(
        ascii.filter((s) => s.length > 0),
        ascii,
        (typed, text) => {
          assert.equal(new RE2(escapeRegex(typed), 'iu').test(text), text.toLowerCase().includes(typed.toLowerCase()))
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('trims what was typed and sends nothing for blanks; the regex switch sends the pattern as typed', () => {
    assert.equal(searchPattern('   ', false), undefined)
    assert.equal(searchPattern('', true), undefined)
    assert.equal(searchPattern(' a.b ', false), 'a\\.b')
    assert.equal(searchPattern(' a.b ', true), 'a.b')
  })
})

describe("the API's failures, as the app shows them", () => {
  it("shows the body's message, with or without `error`, and a Retry-After's wait", () => {
    assert.equal(failureMessage(400, 'Bad Request', { message: 'Title is required' }, null), 'Title is required')
    assert.equal(
      failureMessage(200, 'OK', { error: true, message: 'User already exists' }, null),
      'User already exists',
    )
    assert.equal(
      failureMessage(
        429,
        'Too Many Requests',
        { error: true, message: 'Too many failed login attempts; try again later' },
        '900',
      ),
      'Too many failed login attempts; try again later (wait 15 min)',
    )
    assert.equal(failureMessage(503, 'Service Unavailable', { error: true, message: 'Busy' }, '1'), 'Busy (wait 1 s)')
    assert.equal(failureMessage(502, 'Bad Gateway', undefined, null), 'The server answered 502 Bad Gateway')
  })

  it('reads Retry-After in seconds and ignores what it cannot read', () => {
    assert.equal(describeWait('59'), '59 s')
    assert.equal(describeWait('90'), '1 min 30 s')
    assert.equal(describeWait('Wed, 21 Oct 2015 07:28:00 GMT'), undefined)
    assert.equal(describeWait(null), undefined)
  })
})
