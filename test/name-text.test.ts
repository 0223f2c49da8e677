// A name (fullName) holds no control character (src/unicode.ts, NAME_TEXT): create-account and
// edit-user answer 400 "fullName must not contain control characters" for every C0 control, DEL,
// every C1 control and every bidi control (embeddings, overrides, isolates and marks), through
// inject and over a real socket, on both stores; an unpaired surrogate keeps its own answer; and
// names in any script, written as people write them, are accepted and stored exactly.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type Account, type Harness, register, startHarness, targets, uniqueEmail } from './support/harness.js'

const REFUSED = { error: true, message: 'fullName must not contain control characters' }
const SURROGATE = { error: true, message: 'fullName must be valid Unicode text: it contains an unpaired surrogate' }

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i))

/** Every refused character, by class. */
const CLASSES: Record<string, string[]> = {
  'C0 (U+0000–U+001F)': range(0x00, 0x1f),
  'DEL (U+007F)': ['\u007f'],
  'C1 (U+0080–U+009F)': range(0x80, 0x9f),
  'bidi embeddings and overrides (U+202A–U+202E)': range(0x202a, 0x202e),
  'bidi isolates (U+2066–U+2069)': range(0x2066, 0x2069),
  'bidi marks (U+200E, U+200F, U+061C)': ['\u200e', '\u200f', '\u061c'],
}

/** Names as people write them: accents, CJK, Hangul, emoji (with joiners), Arabic and Hebrew, Cyrillic, Devanagari, a Persian non-joiner. */
const ORDINARY = [
  'Zoë Ångström',
  'José Núñez',
  '李小龍',
  '山田 太郎',
  '김민준',
  '😀 Party 👨‍👩‍👧',
  'محمد عبد الله',
  'שרה כהן',
  'Ада Лавлейс',
  'देवनागरी नाम',
  'مریم می‌خواهد',
  'O\'Brien-Smith, Jr. ("Bob")',
  'Ada Lovelace محمد',
]

const code = (c: string) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`

for (const { mode, storeKind } of targets()) {
  describe(`a name holds no control character (${mode}, ${storeKind})`, () => {
    let h: Harness
    let a: Account
    before(async () => {
      h = await startHarness(mode, { storeKind })
      a = await register(h.client, 'Before Rename')
    })
    after(async () => h.close())

    const create = (fullName: string) =>
      h.client.request('POST', '/create-account', {
        body: { fullName, email: uniqueEmail('name'), password: 'correct horse' },
      })
    const rename = (fullName: string) => h.client.request('PUT', '/edit-user', { token: a.token, body: { fullName } })
    const storedName = async () =>
      ((await h.client.request('GET', '/get-user', { token: a.token })).json as { user: { fullName: string } }).user
        .fullName

    for (const [kind, characters] of Object.entries(CLASSES)) {
      it(`create-account and edit-user refuse ${kind}, wherever it stands in the name`, async () => {
        for (const [i, c] of characters.entries()) {
          // At the start, in the middle or at the end, in turn.
          const name = ['', 'Ada ', 'Ada Lovelace'][i % 3] + c + ['Lovelace', ' Lovelace', ''][i % 3]
          const created = await create(name)
          assert.deepEqual([created.status, created.json], [400, REFUSED], `create-account, ${code(c)}`)
          const renamed = await rename(name)
          assert.deepEqual([renamed.status, renamed.json], [400, REFUSED], `edit-user, ${code(c)}`)
        }
        assert.equal(await storedName(), 'Before Rename', 'nothing was renamed')
      })
    }

    it('refuses the hostile name of a forged terminal line, and names an unpaired surrogate as before', async () => {
      const forged =
        'Ops\u001b]0;owned\u0007\u001b[2J\r\n6b0000000000000000000000  admin@corp.example  Admin  2020-01-01T00:00:00.000Z'
      assert.deepEqual((await create(forged)).json, REFUSED)
      assert.deepEqual((await rename(forged)).json, REFUSED)
      // The unpaired surrogate is named first, wherever the control character stands.
      for (const name of ['a\ud800', 'a\u001b\ud800', '\udc00\u202e']) {
        assert.deepEqual((await create(name)).json, SURROGATE, JSON.stringify(name))
        assert.deepEqual((await rename(name)).json, SURROGATE, JSON.stringify(name))
      }
      // The checks before it still come first: the type, then the length.
      assert.deepEqual((await create('x'.repeat(200) + '\u001b')).json, {
        error: true,
        message: 'fullName must be at most 200 characters',
      })
      // Other fields keep control characters: an email with one is accepted (the operator commands escape it).
      const tabbed = await h.client.request('POST', '/create-account', {
        body: { fullName: 'Tab Email', email: `tab\t${uniqueEmail()}`, password: 'pw\u0001' },
      })
      assert.equal(tabbed.status, 200, tabbed.text)
    })

    it('accepts ordinary names in any script and stores them exactly', async () => {
      for (const name of ORDINARY) {
        const created = await create(name)
        assert.equal(created.status, 200, `${name}: ${created.text}`)
        assert.equal((created.json as { user: { fullName: string } }).user.fullName, name)
        const renamed = await rename(name)
        assert.equal(renamed.status, 200, `${name}: ${renamed.text}`)
        assert.equal((renamed.json as { user: { fullName: string } }).user.fullName, name)
        assert.equal(await storedName(), name)
      }
    })
  })
}
