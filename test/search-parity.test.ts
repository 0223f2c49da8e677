// Search gives exactly the same notes, in the same order, on both stores: the same notes go into
// each, and patterns on which PostgreSQL's own regex dialect would disagree with RE2 (classes,
// word boundaries, Unicode case folding, anchors, newlines) must select the same ids.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import RE2 from 're2'
import type { Store } from '../src/store/types.js'
import { searchNotes, testSearchPool } from './support/search.js'
import { makeNote, makeUser } from './support/store-contract.js'
import { openTestStore, storeKinds } from './support/stores.js'

const TEXTS: Array<[string, string]> = [
  ['Groceries', 'milk, eggs, 12 apples'],
  ['CAT facts', 'the cat sat\non the mat'],
  ['concatenate', 'strings'],
  ['Straße', 'STRASSE is not Straße in simple folding'],
  ['ΣΊΣΥΦΟΣ', 'σίσυφος'],
  ['line one', 'first\nsecond line'],
  ['tabs', 'a\tb'],
  ['brackets', '[x] (y) {z} a+b a*b a.b a\\b'],
  ['emoji 🎉', 'party'],
  ['numbers', '2026-11-22 v1.2.3'],
  // U+212A KELVIN SIGN and U+017F LONG S fold onto k and s in RE2: the index must find them.
  ['\u212Aelvin scale', '\u017Ftra\u017F\u017Fe'],
  ['50% off_sale', 'a_b 100%'],
  // Literals a plan requires, within one field: `meet` then ` at `.
  ['Meeting at 10am', 'agenda'],
  ['be at the', 'meeting'],
  ['the MEET', 'at 3pm'],
  ['a_b%c', 'x\\y'],
]

const PATTERNS = [
  'cat',
  '\\bcat\\b',
  'CAT',
  '\\d+',
  '\\d{4}-\\d{2}',
  '[[:upper:]]{3}',
  '\\w+ \\w+',
  '^line',
  'line$',
  '(?m)^second',
  'a.b',
  'first.second',
  '(?s)first.second',
  'straße',
  'σίσυφος',
  'Σ',
  '\\pL{3}',
  '\\p{Greek}+',
  '🎉',
  '\\[x\\]',
  'a\\+b',
  'a\\\\b',
  '',
  '.',
  'x|y|z',
  '(y)',
  'apples?$',
  '\\Aconcat',
  'e\\z',
  '[^a-z ]',
  'kelvin',
  'KELVIN SCALE',
  'strasse',
  'STRASSE',
  '50% off',
  'off_sale',
  'a_b',
  '0%',
  'ff_s',
  'meet(ing)? at [0-9]{1,2}(am|pm)',
  'meet.* at ',
  ' at .*meet',
  'a_b.c',
  'a_b%c',
  '\\\\y',
]

const kinds = storeKinds()
const pool = testSearchPool()
after(() => pool.close())
if (kinds.length > 1) {
  describe(`search parity: ${kinds.join(' vs ')}`, () => {
    const stores: Store[] = []
    const owner = makeUser()
    before(async () => {
      const notes = TEXTS.map(([title, content], i) => makeNote(owner._id, { title, content, isPinned: i % 4 === 0 }))
      for (const kind of kinds) {
        const store = await openTestStore(kind)
        stores.push(store)
        await store.createUser(owner)
        for (const note of notes) await store.insertNote(note)
      }
    })
    after(async () => Promise.all(stores.map((s) => s.close())))

    it('selects the same notes in the same order for every pattern', async () => {
      let nonTrivial = 0
      for (const pattern of PATTERNS) {
        const [first, ...rest] = await Promise.all(
          stores.map(async (s) => (await searchNotes(pool, s, owner._id, pattern)).map((n) => n.title)),
        )
        for (const other of rest) assert.deepEqual(other, first, `pattern ${JSON.stringify(pattern)}`)
        if (first!.length > 0 && first!.length < TEXTS.length) nonTrivial++
      }
      // The patterns must actually discriminate, or the comparison proves little.
      assert.ok(nonTrivial >= 20, `only ${nonTrivial} patterns selected a proper subset`)
    })
  })
}

// Every store against the plain meaning: RE2 alone, run on every note, with no index in front.
for (const kind of kinds) {
  describe(`search on ${kind} selects what RE2 alone selects`, () => {
    let store: Store
    const owner = makeUser()
    const notes = TEXTS.map(([title, content], i) =>
      makeNote(owner._id, { title, content, createdOn: new Date(Date.UTC(2026, 0, 1) + i).toISOString() }),
    )
    before(async () => {
      store = await openTestStore(kind)
      await store.createUser(owner)
      for (const note of notes) await store.insertNote(note)
    })
    after(async () => store.close())

    it('for every pattern, including ones with a literal the store may test first', async () => {
      for (const pattern of PATTERNS) {
        const re = new RE2(pattern, 'iu')
        const expected = notes
          .filter((n) => re.test(n.title) || re.test(n.content))
          .map((n) => n.title)
          .reverse()
        const found = (await searchNotes(pool, store, owner._id, pattern)).map((n) => n.title)
        assert.deepEqual(found, expected, `pattern ${JSON.stringify(pattern)}`)
      }
    })
  })
}
