// The bodies of GET /get-all-notes and GET /search-notes, whichever form their JSON takes on the
// way (Store.JsonText): a string read by a driver, the bytes the listing cache keeps, and a
// string over 16 Ki characters sent as its UTF-8 bytes (routes/notes.ts). Listings of generated
// non-ASCII text on both sides of that length, with the listing cache on and off: the body parses
// to the notes as add-note answered them, in list order, and Content-Length counts its bytes.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { type Harness, type NoteBody, addNote, register, startHarness, targets } from './support/harness.js'

/** Characters whose UTF-8 takes one to four bytes, and those JSON escapes. */
const unit = fc.constantFrom('a', 'Z', ' ', 'é', 'ß', '€', '日', '😀', '\u2028', '"', '\\', '\n', '\u0000')
/**
 * A content of 1 to 12 000 characters (add-note requires one): three make a listing on either
 * side of 16 Ki. A cut through an emoji's surrogate pair drops its first half: an unpaired
 * surrogate is refused by add-note (docs/compatibility.md), which is not what this test is about.
 */
const content = fc
  .tuple(fc.array(unit, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 1500 }))
  .map(([units, times]) =>
    units
      .join('')
      .repeat(times)
      .slice(0, 12_000)
      .replace(/[\uD800-\uDBFF]$/, ''),
  )

for (const { mode, storeKind } of targets()) {
  for (const listingCacheMb of [16, 0]) {
    describe(`listing and search bodies (${mode}, ${storeKind}, LISTING_CACHE_MB=${listingCacheMb})`, () => {
      let h: Harness
      before(async () => {
        h = await startHarness(mode, { storeKind, config: { listingCacheMb } })
      })
      after(async () => h.close())

      const bodyOf = async (path: string, token: string) => {
        const res = await h.client.request('GET', path, { token })
        assert.equal(res.status, 200)
        assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.text))
        return res.json as { error: boolean; notes: NoteBody[]; message: string }
      }

      it('answers every note as added, in list order, twice in a row', async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(content, { minLength: 1, maxLength: 3 }), async (contents) => {
            const { token } = await register(h.client)
            const added: NoteBody[] = []
            for (const [i, text] of contents.entries())
              added.push(await addNote(h.client, token, { title: `note ${i}`, content: text }))
            const expected = [...added].reverse() // newest first; none is pinned
            for (let read = 0; read < 2; read++) {
              // The second read is the kept listing when the cache is on.
              assert.deepEqual(await bodyOf('/get-all-notes', token), {
                error: false,
                notes: expected,
                message: 'All notes retrieved successfully',
              })
            }
            assert.deepEqual(await bodyOf('/search-notes?query=note', token), {
              error: false,
              notes: expected,
              message: 'Notes matching the search query retrieved successfully',
            })
          }),
          { numRuns: 6 },
        )
      })
    })
  }
}
