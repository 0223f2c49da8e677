// The cost bound of search patterns (src/services/search-cost.ts, docs/search.md). One native RE2
// call cannot be interrupted, and for a pattern such as `(.*a){1000}` one call over a
// 100 000-character note runs for seconds to minutes, holding its search thread past any budget.
// Such patterns are refused before RE2 sees them; what is accepted runs each call well within the
// budget. Here: the patterns people type are accepted, the costly ones refused with the contract's
// 400 (pool and HTTP, both stores), the estimate reads RE2's own syntax, and a property over a
// grammar of the risky constructs: every pattern is refused, or its search over the largest note
// leaves the thread free within a generous multiple of the budget.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { ContractError } from '../src/errors.js'
import { MAX_PATTERN_COST, patternCost } from '../src/services/search-cost.js'
import { SearchPool } from '../src/services/search-pool.js'
import { eventually } from './support/eventually.js'
import { type Account, type Harness, addNote, register, startHarness, targets } from './support/harness.js'

/** The patterns people type: words, a few dozen alternatives, dates, addresses, 500-character literals. */
const ORDINARY = [
  'groceries',
  'Meeting notes',
  'meet(ing)? at [0-9]{1,2}(am|pm)',
  '\\d{4}-\\d{2}',
  '\\d{4}-\\d{2}-\\d{2}',
  '[a-z]+@[a-z]+\\.com',
  '[\\w.+-]+@[\\w-]+\\.[a-z]{2,}',
  Array.from({ length: 40 }, (_, i) => `word${i}`).join('|'),
  'milk|eggs|bread|butter|cheese|apples|bananas|coffee|tea|rice|pasta|tomatoes|onions|garlic|salt|pepper|sugar|flour|oil|vinegar|yogurt|chicken|beef|fish|beans',
  '\\bgrocer(y|ies)\\b',
  'todo:?\\s+\\w+',
  '(?i)invoice #?\\d+',
  '\\p{Han}+',
  '^\\s*- \\[ \\] ',
  'https?://[^ ]+',
  'The quick brown fox jumps over the lazy dog, again and again; '.repeat(9).slice(0, 500),
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor '.repeat(7).slice(0, 500),
  '漢字仮名交じり文'.repeat(40).slice(0, 300),
]

/** Patterns whose single call over a large note costs RE2 seconds (docs/search.md's figures). */
const COSTLY = [
  '(.*a){1000}',
  '(.{1,10}){100}!',
  `(${[...'abcdefghijklmnopqrstuvwxyz'].map((c) => `.*${c}`).join('|')}){1000}`,
  '(a|aa|aaa|aaaa){1000}',
  '((.{1,10}){10}){10}!',
  '(\\w+\\s){500}!',
  '\\pL{100}!',
  '(.*a){20}'.repeat(55).slice(0, 495),
]

const isRefusal = (message: RegExp) => (err: unknown) =>
  err instanceof ContractError && err.statusCode === 400 && message.test(err.message)
const TOO_COMPLEX =
  /^query is too complex: its estimated cost is \d+ \(at most 1000\); large counted repetitions such as \{1000\} multiply the cost of what they repeat$/

describe('search cost estimate', () => {
  it('accepts the patterns people type, up to 500 characters of literals', () => {
    for (const pattern of ORDINARY) {
      assert.ok(pattern.length <= 500)
      assert.ok(patternCost(pattern) <= MAX_PATTERN_COST, `${pattern}: ${patternCost(pattern)}`)
    }
  })

  it('puts the costly patterns over the bound', () => {
    for (const pattern of COSTLY)
      assert.ok(patternCost(pattern) > MAX_PATTERN_COST, `${pattern}: ${patternCost(pattern)}`)
  })

  it('multiplies by counted repetitions and adds alternatives and concatenations', () => {
    assert.equal(patternCost('a'), 1)
    assert.equal(patternCost('abc'), 3)
    assert.equal(patternCost('a|b'), 3) // two literals and the branch
    assert.equal(patternCost('(?:ab){10}'), 20)
    assert.equal(patternCost('(ab){10}'), 40) // a capture's two instructions in every copy
    assert.equal(patternCost('a{2,5}'), 5 + 3) // five copies, three of them optional
    assert.equal(patternCost('a{3,}'), 3 + 1)
    assert.equal(patternCost('((?:a){10}){10}'), 100 + 20)
  })

  it('reads RE2 syntax that JavaScript lacks, never counting it cheaper than what RE2 compiles', () => {
    // Named groups and flag groups: as costly as the plain group.
    assert.ok(patternCost('(?P<x>.*a){100}') >= patternCost('(?:.*a){100}'))
    assert.ok(patternCost('(?<x>.*a){100}') >= patternCost('(?:.*a){100}'))
    assert.equal(patternCost('(?s)(?:.*a){100}'), patternCost('(?:.*a){100}'))
    assert.equal(patternCost('(?i:(?:.*a){100})'), patternCost('(?:.*a){100}'))
    // A quoted run is literal text, however it looks; {,3} is literal text in RE2.
    assert.equal(patternCost('\\Q(.*){1000}\\E'), '(.*){1000}'.length)
    assert.equal(patternCost('x{,3}'), 5)
    // A class is as wide as its widest member: POSIX, negated, properties, non-ASCII members.
    assert.equal(patternCost('[[:alpha:]]'), patternCost('[a-z]'))
    assert.equal(patternCost('[[:^alpha:]]'), patternCost('.'))
    assert.equal(patternCost('[^a]'), patternCost('.'))
    assert.equal(patternCost('[aé]'), patternCost('.'))
    assert.equal(patternCost('[\\pL\\d]'), patternCost('\\pL'))
    assert.equal(patternCost('[]a]'), patternCost('[a]'))
    assert.ok(patternCost('\\pL') > 10 * patternCost('.') - 20)
    // JavaScript escapes node-re2 rewrites for RE2: one character each.
    for (const escape of ['\\u0041', '\\u{1F600}', '\\x41', '\\x{41}', '\\cJ', '\\101'])
      assert.ok(patternCost(`${escape}{100}`) >= 100, escape)
    // RE2's literals that JavaScript refuses: an escaped `-`, a brace of no repetition, a `]` of no class.
    assert.equal(patternCost('a\\-b}]'), 5)
    assert.equal(patternCost('[a[]b'), patternCost('[a]b'))
  })

  // Patterns of literals, classes, properties, alternatives and nested counted repetitions.
  const { pattern: nested } = fc.letrec((tie) => ({
    element: fc.constantFrom('a', '漢', '.', '\\d', '\\pL', '[^a]', '(ab|c)', 'x*', 'y?'),
    part: fc.oneof({ depthSize: 'small' }, tie('element'), tie('counted')),
    pattern: fc.array(tie('part'), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('')),
    counted: fc
      .tuple(tie('pattern'), fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 30 }))
      .map(([body, n, extra]) => `(?:${body as string}){${n},${n + extra}}`),
  }))

  it('counts what JavaScript cannot parse no cheaper than its parsable twin', () => {
    // `\101` is RE2's octal `A`, which JavaScript's u mode refuses: such a pattern gets the rough bound.
    fc.assert(fc.property(nested, (pattern) => patternCost(`${pattern}\\101`) >= patternCost(`${pattern}A`)))
  })

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 200 }),
        (text) => Number.isFinite(patternCost(text)) && patternCost(text) >= 0,
      ),
    )
  })
})

describe('search cost bound (pool)', () => {
  const BUDGET_MS = 500
  const pool = new SearchPool({ threads: 1, queue: 0, timeoutMs: BUDGET_MS })
  before(() => pool.started())
  after(() => pool.close())

  it('refuses a costly pattern with 400 at once, before RE2 compiles it: no thread, no place among the searches', () => {
    // start() throws synchronously: nothing was sent to a thread.
    for (const pattern of COSTLY) {
      assert.throws(() => pool.start(pattern), isRefusal(TOO_COMPLEX), pattern)
      assert.equal(pool.underWay, 0)
    }
    // Even one RE2 would refuse: its cost is known before RE2 sees it.
    assert.throws(() => pool.start('(.*a){1000}(?=x)'), isRefusal(TOO_COMPLEX))
  })

  it('runs the patterns people type', async () => {
    for (const pattern of ORDINARY) {
      const search = pool.start(pattern)
      try {
        assert.deepEqual(await search.matchPage([{ title: 'nothing here', content: 'zzz' }]), [], pattern)
      } finally {
        search.end()
      }
      await eventually('the place given back', async () => pool.underWay === 0)
    }
  })

  // The grammar of what makes RE2 slow: counted repetitions (nested, up to RE2's 1000) of groups
  // holding loops, optional parts, alternations of `.*x`, wide and Unicode classes, usually with a
  // `!` no note holds, so that RE2 reads the whole text. Without the bound, most of these take
  // RE2 seconds to minutes per call over the texts below.
  const atom = fc.constantFrom(
    'a',
    'b',
    'x',
    '.',
    '(?s).',
    '\\w',
    '\\S',
    '\\d',
    '[a-z]',
    '[^a]',
    '\\pL',
    '\\PL',
    '\\p{Greek}',
    '漢',
    'é',
    '[\\pL\\pN]',
  )
  const quantifier = fc.constantFrom('', '*', '+', '?', '{1,10}', '{0,5}', '{2}', '{1,3}?')
  const piece = fc.oneof(
    fc.tuple(atom, quantifier).map(([a, q]) => a + q),
    atom.map((a) => `.*${a}`),
  )
  const body = fc.oneof(
    fc.array(piece, { minLength: 1, maxLength: 3 }).map((ps) => ps.join('')),
    fc.array(piece, { minLength: 2, maxLength: 26 }).map((ps) => ps.join('|')),
  )
  const count = fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.constantFrom(10, 100, 500, 1000))
  const risky = fc
    .tuple(body, count, fc.option(fc.integer({ min: 2, max: 10 })), fc.constantFrom('(', '(?:'), fc.boolean())
    .map(([b, n, outer, open, bang]) => {
      const inner = `${open}${b}){${outer ? Math.max(1, Math.floor(n / outer)) : n}}`
      return (outer ? `(?:${inner}){${outer}}` : inner) + (bang ? '!' : '')
    })
    .filter((p) => p.length <= 500)
  /** The unit the largest note the limits allow is made of, repeated (without `!`). */
  const unit = fc.constantFrom('a', '漢', 'ab', 'é', 'x1 ', 'Ωж')
  const largestNote = (u: string) => ({
    title: u.repeat(1000).slice(0, 1000),
    content: u.repeat(100_000).slice(0, 100_000),
  })

  it('property: every pattern is refused, or leaves the thread free within a few budgets over the largest note', async () => {
    const GENEROUS_MS = 6 * BUDGET_MS
    let refused = 0
    let ran = 0
    await fc.assert(
      fc.asyncProperty(risky, unit, async (pattern, u) => {
        const started = performance.now()
        let search
        try {
          search = pool.start(pattern)
        } catch (err) {
          if (!isRefusal(TOO_COMPLEX)(err)) throw err
          refused++
          return
        }
        try {
          await search.matchPage([largestNote(u)])
          ran++
        } catch (err) {
          if (isRefusal(/^query is not a supported regular expression: /)(err)) refused++
          else if (isRefusal(/^Search took longer than 500 ms/)(err)) ran++
          else throw err
        } finally {
          search.end()
        }
        // The thread is free once the search's place is given back (its last RE2 call returned).
        while (pool.underWay > 0 && performance.now() - started < 120_000)
          await new Promise((resolve) => setTimeout(resolve, 10))
        const freeMs = performance.now() - started
        assert.ok(freeMs < GENEROUS_MS, `${pattern} over '${u}'s held the thread ${freeMs.toFixed(0)} ms`)
      }),
      { numRuns: 40 },
    )
    // The grammar reaches both sides of the bound.
    assert.ok(refused > 0, 'no pattern was refused')
    assert.ok(ran > 0, 'no pattern ran')
  })
})

for (const { mode, storeKind } of targets()) {
  describe(`search cost bound (${mode}, ${storeKind})`, () => {
    let h: Harness
    let writer: Account
    let empty: Account
    before(async () => {
      h = await startHarness(mode, { storeKind, config: { searchThreads: 1, searchQueue: 4 } })
      writer = await register(h.client, 'Writer')
      empty = await register(h.client, 'Empty')
      await addNote(h.client, writer.token, { title: 'Groceries', content: 'a'.repeat(99_990) + '!' })
    })
    after(async () => h.close())

    const search = (token: string, query: string) =>
      h.client.request('GET', `/search-notes?query=${encodeURIComponent(query)}`, { token })

    it('answers a costly pattern 400 "query is too complex", with notes or without', async () => {
      for (const account of [writer, empty]) {
        const res = await search(account.token, '(.*a){1000}')
        assert.equal(res.status, 400)
        assert.deepEqual(res.json, {
          error: true,
          message:
            'query is too complex: its estimated cost is 10000 (at most 1000); large counted repetitions such as {1000} multiply the cost of what they repeat',
        })
      }
    })

    it('answers the patterns people type', async () => {
      for (const query of ['groceries', '\\d{4}-\\d{2}', '[a-z]+@[a-z]+\\.com', 'GROCERIES|eggs']) {
        const res = await search(writer.token, query)
        assert.equal(res.status, 200, `${query}: ${res.text.slice(0, 200)}`)
      }
      const found = await search(writer.token, 'grocer(y|ies)')
      assert.deepEqual(
        (found.json as { notes: Array<{ title: string }> }).notes.map((n) => n.title),
        ['Groceries'],
      )
    })
  })
}
