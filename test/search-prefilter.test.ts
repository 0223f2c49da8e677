// The search pre-check must never change an answer: it only skips RE2 for notes RE2 would reject.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import RE2 from 're2'
import { compileSearchPattern } from '../src/services/search.js'
import { containsFolded, requiredLiteral } from '../src/services/search-prefilter.js'

describe('requiredLiteral', () => {
  it('takes the longest unquantified run of the top-level sequence, lower-cased', () => {
    assert.equal(requiredLiteral('Grocery'), 'grocery')
    assert.equal(requiredLiteral('meet(ing)? at [0-9]{1,2}(am|pm)'), 'meet')
    assert.equal(requiredLiteral('colou?r chart'), 'r chart')
    assert.equal(requiredLiteral('foo.*barbaz'), 'barbaz')
    assert.equal(requiredLiteral('(?i)Hello'), 'hello')
    assert.equal(requiredLiteral('^total: \\d+ items$'), 'total: ')
  })

  it('gives up where a run would not be required or the syntax is not followed', () => {
    assert.equal(requiredLiteral('grocery|shopping'), undefined) // top-level alternative
    assert.equal(requiredLiteral('ab'), undefined) // too short to be worth it
    assert.equal(requiredLiteral('abc+'), undefined) // c may repeat: only "ab" is fixed
    assert.equal(requiredLiteral('\\QHello\\E'), undefined)
    assert.equal(requiredLiteral('[[:alpha:]]word'), undefined)
    assert.equal(requiredLiteral('[]word]'), undefined)
    assert.equal(requiredLiteral('(unclosed'), undefined)
  })

  it('never reads the digits or names of an escape as literal text', () => {
    assert.equal(requiredLiteral('\\u0041xyz'), 'xyz')
    assert.equal(requiredLiteral('\\u{1F600}'), undefined)
    assert.equal(requiredLiteral('\\x41bc'), undefined)
    assert.equal(requiredLiteral('\\p{Greek}word'), 'word')
    assert.equal(requiredLiteral('\\101abc'), 'abc')
    assert.equal(requiredLiteral('\\bnote\\b'), 'note')
  })
})

describe('containsFolded', () => {
  it('folds case as RE2 does, including the Kelvin sign and the long s', () => {
    assert.equal(containsFolded('A GROCERY list', 'grocery'), true)
    assert.equal(containsFolded('\u212Aelvin', 'kelvin'), true)
    assert.equal(containsFolded('\u017Ftreet', 'street'), true)
    assert.equal(containsFolded('nothing here', 'grocery'), false)
  })
})

describe('compileSearchPattern with the pre-check', () => {
  const patterns = [
    'grocery', 'GROCERY', 'meet(ing)? at [0-9]{1,2}(am|pm)', 'street', 'kelvin', 'istanbul',
    'colou?r chart', '\\bnote\\b', 'foo.*barbaz', '^total: \\d+ items$', 'ſtreet', 'ab[cd]ef',
  ]
  const texts = [
    '', 'Grocery list: milk', 'GROCERIES', 'Meeting at 10am', 'MEET AT 3PM please', 'meet at noon',
    '\u017Ftreet food', 'STREET', '\u212Aelvin scale', 'KELVIN', '\u0130stanbul', 'istanbul',
    'Colour chart', 'color chart', 'a note here', 'notes', 'foo and barbaz', 'total: 12 items',
    'abcef', 'ABDEF', 'abef',
  ]
  it('answers exactly as RE2 alone for every pattern and text', () => {
    for (const pattern of patterns) {
      const plain = new RE2(pattern, 'iu')
      const matcher = compileSearchPattern(pattern)
      for (const text of texts) {
        assert.equal(matcher.test(text), plain.test(text), `${pattern} on ${JSON.stringify(text)}`)
      }
    }
  })
})
