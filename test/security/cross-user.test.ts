// No cross-user access: user B, holding user A's note ids (live and deleted), ids of
// its own deleted notes, malformed ids and ids of other shapes, gets 404 from every note
// endpoint and changes nothing: A's data reads back byte for byte the same.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  type Account,
  type Harness,
  MODES,
  type NoteBody,
  addNote,
  register,
  startHarness,
} from '../support/harness.js'
import { storesUnderTest } from '../support/stores.js'
import { listedNotes } from '../support/listed.js'

/** Ids that are not A's live notes' exact ids, but are built to look like them. */
function strangeIds(aId: string, deleted: string[]): string[] {
  return [
    ...deleted,
    'ffffffffffffffffffffffff',
    aId.toUpperCase(),
    `${aId}0`,
    aId.slice(0, -1),
    ` ${aId}`,
    `${aId}%00`,
    `${aId}%20`,
    '%30' + aId.slice(1), // percent-encoded first character: decodes to A's real id (must still be 404 for B)
    `..%2F${aId}`,
    "' OR '1'='1",
    '*',
    '%25',
    'null',
    'undefined',
    '[object Object]',
    '{"$ne":null}',
    '%7B%22%24ne%22%3Anull%7D',
    '-1',
    '0',
    'é',
    '%C3%A9',
    '%FF',
    'a'.repeat(5000),
  ]
}

const pathsFor = (id: string): Array<[string, string, unknown?]> => [
  ['PUT', `/edit-note/${id}`, { title: 'pwned', content: 'pwned', tags: ['pwned'], isPinned: true }],
  ['PUT', `/update-note-pinned/${id}`, { isPinned: true }],
  ['PUT', `/update-note-pinned/${id}`, { isPinned: false }],
  ['DELETE', `/delete-note/${id}`],
]

for (const store of storesUnderTest()) {
  for (const mode of MODES) {
    describe(`cross-user access (${store.name}, ${mode})`, () => {
      let h: Harness
      let a: Account
      let b: Account
      let aNotes: NoteBody[]
      const deleted: string[] = []
      const snapshot = async () => ({
        list: (await h.client.request('GET', '/get-all-notes', { token: a.token })).text,
        user: (await h.client.request('GET', '/get-user', { token: a.token })).text,
        search: (await h.client.request('GET', '/search-notes?query=.', { token: a.token })).text,
        stored: JSON.stringify(await listedNotes(h.store, a.userId)),
      })
      let before_: Awaited<ReturnType<typeof snapshot>>

      before(async () => {
        h = await startHarness(mode, { store: await store.open() })
        a = await register(h.client, 'Alice')
        b = await register(h.client, 'Bob')
        aNotes = [
          await addNote(h.client, a.token, { title: 'A secret', content: 'only for A', tags: ['private'] }),
          await addNote(h.client, a.token, { title: 'A second', content: 'also A' }),
        ]
        await h.client.request('PUT', `/update-note-pinned/${aNotes[0]!._id}`, {
          token: a.token,
          body: { isPinned: true },
        })
        for (const owner of [a, b]) {
          const gone = await addNote(h.client, owner.token, { title: 'to delete', content: 'x' })
          assert.equal(
            (await h.client.request('DELETE', `/delete-note/${gone._id}`, { token: owner.token })).status,
            200,
          )
          deleted.push(gone._id)
        }
        before_ = await snapshot()
      })
      after(async () => h.close())

      it("answers 404 to B for A's live note ids on edit, pin, unpin and delete", async () => {
        for (const note of aNotes) {
          for (const [method, path, body] of pathsFor(note._id)) {
            const res = await h.client.request(method, path, { token: b.token, ...(body ? { body } : {}) })
            assert.equal(res.status, 404, `${method} ${path}: ${res.text}`)
            assert.deepEqual(res.json, { error: true, message: 'Note not found' })
          }
        }
      })

      it('answers 404 for deleted, malformed and odd-shaped ids', async () => {
        for (const id of strangeIds(aNotes[0]!._id, deleted)) {
          for (const [method, path, body] of pathsFor(id)) {
            const res = await h.client.request(method, path, { token: b.token, ...(body ? { body } : {}) })
            assert.equal(res.status, 404, `${method} ${path.slice(0, 80)}: ${res.text.slice(0, 200)}`)
            assert.equal((res.json as { error?: unknown }).error, true, `${method} ${path.slice(0, 80)}`)
          }
        }
      })

      it("never shows A's notes to B, and add-note ignores a smuggled userId or _id", async () => {
        const smuggled = await addNote(h.client, b.token, {
          title: 'mine',
          content: 'B',
          userId: a.userId,
          _id: aNotes[1]!._id,
        })
        assert.equal(smuggled.userId, b.userId)
        assert.notEqual(smuggled._id, aNotes[1]!._id)
        for (const path of [
          '/get-all-notes',
          '/search-notes?query=.',
          '/search-notes?query=secret',
          `/search-notes?query=${a.userId}`,
        ]) {
          const res = await h.client.request('GET', path, { token: b.token })
          assert.equal(res.status, 200)
          const notes = (res.json as { notes: NoteBody[] }).notes
          assert.ok(
            notes.every((n) => n.userId === b.userId),
            `${path} leaked a foreign note`,
          )
        }
      })

      it("leaves A's data byte-identical", async () => {
        assert.deepEqual(await snapshot(), before_)
        const list = JSON.parse(before_.list) as { notes: NoteBody[] }
        assert.equal(list.notes.length, 2, 'the snapshot holds the notes the attack aimed at')
      })
    })
  }
}
