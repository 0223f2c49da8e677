// The search pre-check must never change an answer: it only skips RE2 for notes RE2 would reject.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import RE2 from 're2'
import { containsFolded, requiredRuns } from '../src/services/search-prefilter.js'

describe('requiredRuns', () => {
  it('takes every unquantified run of the top-level sequence, in order, lower-cased', () => {
    assert.deepEqual(requiredRuns('Grocery'), ['grocery'])
    assert.deepEqual(requiredRuns('meet(ing)? at [0-9]{1,2}(am|pm)'), ['meet', ' at '])
    assert.deepEqual(requiredRuns('colou?r chart'), ['colo', 'r chart'])
    assert.deepEqual(requiredRuns('foo.*barbaz'), ['foo', 'barbaz'])
    assert.deepEqual(requiredRuns('(?i)Hello'), ['hello'])
    assert.deepEqual(requiredRuns('^total: \\d+ items$'), ['total: ', ' items'])
    assert.deepEqual(requiredRuns('abc(x)?abc'), ['abc', 'abc'])
    assert.deepEqual(requiredRuns('ab.cde'), ['cde']) // runs shorter than three are left out
  })

  it('gives up where a run would not be required or the syntax is not followed', () => {
    assert.equal(requiredRuns('grocery|shopping'), undefined) // top-level alternative
    assert.equal(requiredRuns('ab'), undefined) // too short to be worth it
    assert.equal(requiredRuns('abc+'), undefined) // c may repeat: only "ab" is fixed
    assert.equal(requiredRuns('\\QHello\\E'), undefined)
    assert.equal(requiredRuns('[[:alpha:]]word'), undefined)
    assert.equal(requiredRuns('[]word]'), undefined)
    assert.equal(requiredRuns('(unclosed'), undefined)
  })

  it('never reads the digits or names of an escape as literal text', () => {
    assert.deepEqual(requiredRuns('\\u0041xyz'), ['xyz'])
    assert.equal(requiredRuns('\\u{1F600}'), undefined)
    assert.equal(requiredRuns('\\x41bc'), undefined)
    assert.deepEqual(requiredRuns('\\p{Greek}word'), ['word'])
    assert.deepEqual(requiredRuns('\\101abc'), ['abc'])
    assert.deepEqual(requiredRuns('\\bnote\\b'), ['note'])
  })

  it('never reads the bounds of a repetition as literal text', () => {
    assert.equal(requiredRuns('ab{100,200}'), undefined) // once required "100,200"
    assert.equal(requiredRuns('x{2,3}'), undefined)
    assert.deepEqual(requiredRuns('[0-9]{1,2}(am|pm) at noon'), [' at noon'])
    assert.deepEqual(requiredRuns('abc{2,}defg'), ['defg']) // "ab" is too short
  })
})

describe('containsFolded', () => {
  it('folds case as RE2 does, including the Kelvin sign and the long s', () => {
    assert.equal(containsFolded('A GROCERY list', ['grocery']), true)
    assert.equal(containsFolded('\u212Aelvin', ['kelvin']), true)
    assert.equal(containsFolded('\u017Ftreet', ['street']), true)
    assert.equal(containsFolded('nothing here', ['grocery']), false)
  })

  it('wants the runs one after the other, without overlap', () => {
    assert.equal(containsFolded('Meeting at 3pm', ['meet', ' at ']), true)
    assert.equal(containsFolded('be at the meeting', ['meet', ' at ']), false) // wrong order
    assert.equal(containsFolded('abcabc', ['abc', 'abc']), true)
    assert.equal(containsFolded('abcbc', ['abc', 'bc']), true)
    assert.equal(containsFolded('abc', ['abc', 'bc']), false) // would overlap
    assert.equal(containsFolded('\u017Ftop and go', ['stop', ' go']), true) // long s, second pass
  })
})

describe('the pre-check before RE2', () => {
  const patterns = [
    'grocery', 'GROCERY', 'meet(ing)? at [0-9]{1,2}(am|pm)', 'street', 'kelvin', 'istanbul',
    'colou?r chart', '\\bnote\\b', 'foo.*barbaz', '^total: \\d+ items$', 'ſtreet', 'ab[cd]ef',
    'abc(x)?abc', 'at .*meet', 'ab{2,3}', 'x{1,2}y', 'meet{1,2}',
  ]
  const texts = [
    '', 'Grocery list: milk', 'GROCERIES', 'Meeting at 10am', 'MEET AT 3PM please', 'meet at noon',
    '\u017Ftreet food', 'STREET', '\u212Aelvin scale', 'KELVIN', '\u0130stanbul', 'istanbul',
    'Colour chart', 'color chart', 'a note here', 'notes', 'foo and barbaz', 'total: 12 items',
    'abcef', 'ABDEF', 'abef', 'abcabc', 'ABCxABC', 'abcab', 'at the MEETING', 'meeting at', 'abb', 'abbb', 'xxy', 'meett', '1,2', '2,3',
  ]
  it('keeps every text RE2 matches, for every pattern', () => {
    let skipped = 0
    for (const pattern of patterns) {
      const plain = new RE2(pattern, 'iu')
      const runs = requiredRuns(pattern)
      for (const text of texts) {
        const kept = runs === undefined || containsFolded(text, runs)
        if (plain.test(text)) assert.ok(kept, `${pattern} on ${JSON.stringify(text)}`)
        else if (!kept) skipped++
      }
    }
    // The pre-check must also leave out texts, or it proves little.
    assert.ok(skipped > 100, `only ${skipped} texts left out`)
  })
})
