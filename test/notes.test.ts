// The note endpoints: every rule of docs/contract.md for them, against inject and against a real
// listening server.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Note } from '../src/note-shape.js'
import {
  type Account,
  type Harness,
  targets,
  type NoteBody,
  addNote,
  register,
  startHarness,
} from './support/harness.js'

const MISSING_ID = '0123456789abcdef01234567'

for (const { mode, storeKind } of targets()) {
  describe(`notes (${mode}, ${storeKind})`, () => {
    let h: Harness
    let a: Account
    let b: Account
    before(async () => {
      h = await startHarness(mode, { storeKind })
      a = await register(h.client, 'Alice')
      b = await register(h.client, 'Bob')
    })
    after(async () => h.close())
    const req = (method: string, path: string, token: string, body?: unknown) =>
      h.client.request(method, path, body === undefined ? { token } : { token, body })

    describe('POST /add-note', () => {
      it('saves the note for the token user and returns it (rule 3)', async () => {
        const res = await req('POST', '/add-note', a.token, { title: 'T', content: 'C', tags: ['x', 'y'] })
        assert.equal(res.status, 200)
        const body = res.json as { error: boolean; note: NoteBody; message: string }
        assert.equal(body.error, false)
        assert.equal(body.message, 'Note added successfully')
        // The contract's keys, and every other one the note's shape adds (src/note-shape.ts).
        for (const key of ['_id', 'content', 'createdOn', 'isPinned', 'tags', 'title', 'updatedOn', 'userId'])
          assert.ok(key in body.note, key)
        assert.deepEqual(Object.keys(body.note), Object.keys(Note.properties))
        assert.match(body.note._id, /^[0-9a-f]{24}$/)
        assert.equal(body.note.title, 'T')
        assert.equal(body.note.content, 'C')
        assert.deepEqual(body.note.tags, ['x', 'y'])
        assert.equal(body.note.isPinned, false)
        assert.equal(body.note.userId, a.userId)
      })

      it('defaults tags to [] when omitted or falsy', async () => {
        for (const tags of [undefined, null, '', 0, false]) {
          const note = await addNote(h.client, a.token, { title: 'T', content: 'C', tags })
          assert.deepEqual(note.tags, [])
        }
      })

      it('ignores isPinned, userId and _id in the body', async () => {
        const note = await addNote(h.client, a.token, {
          title: 'T',
          content: 'C',
          isPinned: true,
          userId: b.userId,
          _id: MISSING_ID,
        })
        assert.equal(note.isPinned, false)
        assert.equal(note.userId, a.userId)
        assert.notEqual(note._id, MISSING_ID)
      })

      it('answers {message: "Title is required"} with no error key (rule 1)', async () => {
        for (const title of [undefined, '', null, 0, false]) {
          const res = await req('POST', '/add-note', a.token, { title, content: 'C' })
          assert.equal(res.status, 400)
          assert.deepEqual(res.json, { message: 'Title is required' })
        }
        const empty = await req('POST', '/add-note', a.token, {})
        assert.deepEqual(empty.json, { message: 'Title is required' })
      })

      it('answers {message: "content is required"} with no error key (rule 2)', async () => {
        for (const content of [undefined, '', null]) {
          const res = await req('POST', '/add-note', a.token, { title: 'T', content })
          assert.equal(res.status, 400)
          assert.deepEqual(res.json, { message: 'content is required' })
        }
      })

      it('answers 400 {error: true} naming the field for wrong types and sizes', async () => {
        const cases: Array<[Record<string, unknown>, string]> = [
          [{ title: { a: 1 }, content: 'C' }, 'title must be a string'],
          [{ title: 'T', content: ['C'] }, 'content must be a string'],
          [{ title: 'T', content: 'C', tags: 'work' }, 'tags must be an array'],
          [{ title: 'T', content: 'C', tags: ['ok', 3] }, 'tags must be an array of strings'],
          [{ title: 'x'.repeat(1001), content: 'C' }, 'title must be at most 1000 characters'],
          [{ title: 'T', content: 'x'.repeat(100_001) }, 'content must be at most 100000 characters'],
          [
            { title: 'T', content: 'C', tags: Array.from({ length: 101 }, () => 't') },
            'tags must have at most 100 items',
          ],
          [{ title: 'T', content: 'C', tags: ['x'.repeat(101)] }, 'each of tags must be at most 100 characters'],
        ]
        for (const [body, message] of cases) {
          const res = await req('POST', '/add-note', a.token, body)
          assert.equal(res.status, 400, message)
          assert.deepEqual(res.json, { error: true, message })
        }
      })
    })

    describe('PUT /edit-note/:noteId', () => {
      it('applies truthy fields and returns the updated note (rules 2-3)', async () => {
        const note = await addNote(h.client, a.token, { title: 'old', content: 'old', tags: ['a'] })
        const res = await req('PUT', `/edit-note/${note._id}`, a.token, {
          title: 'new',
          content: 'body',
          tags: ['b'],
          isPinned: true,
        })
        assert.equal(res.status, 200)
        const body = res.json as { error: boolean; note: NoteBody; message: string }
        assert.equal(body.error, false)
        assert.equal(body.message, 'Note updated successfully')
        assert.equal(body.note.title, 'new')
        assert.equal(body.note.content, 'body')
        assert.deepEqual(body.note.tags, ['b'])
        assert.equal(body.note.isPinned, true)
        assert.equal(body.note.createdOn, note.createdOn)
      })

      it('leaves fields unchanged for "", false and absent values: isPinned false does not unpin', async () => {
        const note = await addNote(h.client, a.token, { title: 'keep', content: 'keep', tags: ['k'] })
        await req('PUT', `/edit-note/${note._id}`, a.token, { isPinned: true })
        const res = await req('PUT', `/edit-note/${note._id}`, a.token, {
          title: '',
          content: null,
          tags: 0,
          isPinned: false,
        })
        assert.equal(res.status, 200)
        const after = (res.json as { note: NoteBody }).note
        assert.equal(after.title, 'keep')
        assert.equal(after.content, 'keep')
        assert.deepEqual(after.tags, ['k'])
        assert.equal(after.isPinned, true)
        const none = await h.client.request('PUT', `/edit-note/${note._id}`, { token: a.token })
        assert.equal(none.status, 200)
        assert.equal((none.json as { note: NoteBody }).note.title, 'keep')
      })

      it('applies an empty tags array (it is truthy)', async () => {
        const note = await addNote(h.client, a.token, { title: 'T', content: 'C', tags: ['a'] })
        const res = await req('PUT', `/edit-note/${note._id}`, a.token, { tags: [] })
        assert.deepEqual((res.json as { note: NoteBody }).note.tags, [])
      })

      it('answers 404 "Note not found" for a missing, foreign or malformed id and changes nothing (rule 1)', async () => {
        const note = await addNote(h.client, a.token, { title: 'mine', content: 'mine' })
        for (const id of [MISSING_ID, note._id, 'not-an-id', 'ABCDEF0123456789ABCDEF01', '1']) {
          const token = id === note._id ? b.token : a.token
          const res = await req('PUT', `/edit-note/${id}`, token, { title: 'stolen' })
          assert.equal(res.status, 404, id)
          assert.deepEqual(res.json, { error: true, message: 'Note not found' })
        }
        const list = await req('GET', '/get-all-notes', a.token)
        const same = (list.json as { notes: NoteBody[] }).notes.find((n) => n._id === note._id)
        assert.equal(same?.title, 'mine')
      })

      it('answers 400 naming the field for a truthy value of the wrong type', async () => {
        const note = await addNote(h.client, a.token, { title: 'T', content: 'C' })
        const cases: Array<[Record<string, unknown>, string]> = [
          [{ isPinned: 'yes' }, 'isPinned must be a boolean'],
          [{ title: 5 }, 'title must be a string'],
          [{ tags: 'x' }, 'tags must be an array'],
        ]
        for (const [body, message] of cases) {
          const res = await req('PUT', `/edit-note/${note._id}`, a.token, body)
          assert.equal(res.status, 400)
          assert.deepEqual(res.json, { error: true, message })
        }
      })
    })

    describe('DELETE /delete-note/:noteId', () => {
      it('deletes the note and returns it (rule 2)', async () => {
        const note = await addNote(h.client, a.token, { title: 'bye', content: 'bye' })
        const res = await req('DELETE', `/delete-note/${note._id}`, a.token)
        assert.equal(res.status, 200)
        assert.deepEqual(res.json, { error: false, note, message: 'Note deleted successfully' })
        const again = await req('DELETE', `/delete-note/${note._id}`, a.token)
        assert.equal(again.status, 404)
        assert.deepEqual(again.json, { error: true, message: 'Note not found' })
      })

      it("answers 404 for another user's note and keeps it (rule 1)", async () => {
        const note = await addNote(h.client, a.token, { title: 'keep', content: 'keep' })
        for (const id of [note._id, 'zzz', MISSING_ID]) {
          const res = await req('DELETE', `/delete-note/${id}`, b.token)
          assert.equal(res.status, 404)
          assert.deepEqual(res.json, { error: true, message: 'Note not found' })
        }
        const list = (await req('GET', '/get-all-notes', a.token)).json as { notes: NoteBody[] }
        assert.ok(list.notes.some((n) => n._id === note._id))
      })
    })

    describe('PUT /update-note-pinned/:noteId', () => {
      it('stores isPinned whenever present, false included (rule 2)', async () => {
        const note = await addNote(h.client, a.token, { title: 'pin', content: 'pin' })
        const on = await req('PUT', `/update-note-pinned/${note._id}`, a.token, { isPinned: true })
        assert.equal(on.status, 200)
        assert.equal((on.json as { message: string }).message, 'Note updated successfully')
        assert.equal((on.json as { error: boolean }).error, false)
        assert.equal((on.json as { note: NoteBody }).note.isPinned, true)
        const off = await req('PUT', `/update-note-pinned/${note._id}`, a.token, { isPinned: false })
        assert.equal((off.json as { note: NoteBody }).note.isPinned, false)
      })

      it('saves the note unchanged when isPinned is absent', async () => {
        const note = await addNote(h.client, a.token, { title: 'pin', content: 'pin' })
        await req('PUT', `/update-note-pinned/${note._id}`, a.token, { isPinned: true })
        for (const body of [{}, undefined]) {
          const res = await req('PUT', `/update-note-pinned/${note._id}`, a.token, body)
          assert.equal(res.status, 200)
          assert.equal((res.json as { note: NoteBody }).note.isPinned, true)
        }
      })

      it('answers 400 for isPinned of another type, null included', async () => {
        const note = await addNote(h.client, a.token, { title: 'pin', content: 'pin' })
        for (const isPinned of ['yes', null, 1, [true]]) {
          const res = await req('PUT', `/update-note-pinned/${note._id}`, a.token, { isPinned })
          assert.equal(res.status, 400)
          assert.deepEqual(res.json, { error: true, message: 'isPinned must be a boolean' })
        }
      })

      it('answers 404 for a missing or foreign note (rule 1)', async () => {
        const note = await addNote(h.client, a.token, { title: 'pin', content: 'pin' })
        for (const [id, token] of [
          [note._id, b.token],
          [MISSING_ID, a.token],
          ['bad', a.token],
        ] as const) {
          const res = await req('PUT', `/update-note-pinned/${id}`, token, { isPinned: true })
          assert.equal(res.status, 404)
          assert.deepEqual(res.json, { error: true, message: 'Note not found' })
        }
        const list = (await req('GET', '/get-all-notes', a.token)).json as { notes: NoteBody[] }
        assert.equal(list.notes.find((n) => n._id === note._id)?.isPinned, false)
      })
    })

    describe('GET /get-all-notes and GET /search-notes', () => {
      let c: Account
      const made: NoteBody[] = []
      before(async () => {
        c = await register(h.client, 'Carol')
        for (const [title, content] of [
          ['Shopping list', 'milk, eggs'],
          ['Meeting', 'Discuss the Budget'],
          ['budget 2027', 'numbers'],
          ['Ideas', 'a (b) c+ d?'],
        ]) {
          made.push(await addNote(h.client, c.token, { title, content }))
          await new Promise((r) => setTimeout(r, 3)) // distinct createdOn
        }
        await req('PUT', `/update-note-pinned/${made[0]!._id}`, c.token, { isPinned: true })
        await addNote(h.client, a.token, { title: 'budget of alice', content: 'not for carol' })
      })

      it("lists only the user's notes, pinned first, then newest first", async () => {
        const res = await req('GET', '/get-all-notes', c.token)
        assert.equal(res.status, 200)
        const body = res.json as { error: boolean; notes: NoteBody[]; message: string }
        assert.equal(body.error, false)
        assert.equal(body.message, 'All notes retrieved successfully')
        assert.deepEqual(
          body.notes.map((n) => n.title),
          ['Shopping list', 'Ideas', 'budget 2027', 'Meeting'],
        )
        assert.ok(body.notes.every((n) => n.userId === c.userId))
      })

      it('lists an empty array for a user without notes', async () => {
        const fresh = await register(h.client)
        assert.deepEqual((await req('GET', '/get-all-notes', fresh.token)).json, {
          error: false,
          notes: [],
          message: 'All notes retrieved successfully',
        })
      })

      it('sends a repeated listing unchanged, and a changed one afresh (bodies kept per cached listing)', async () => {
        const d = await register(h.client, 'Dora')
        const note = await addNote(h.client, d.token, { title: 'first', content: 'c' })
        const bodies: string[] = []
        for (let i = 0; i < 3; i++) bodies.push((await req('GET', '/get-all-notes', d.token)).text)
        assert.equal(bodies[1], bodies[0])
        assert.equal(bodies[2], bodies[0])
        assert.match(
          bodies[0]!,
          /^\{"error":false,"notes":\[\{"_id":.*\}\],"message":"All notes retrieved successfully"\}$/,
        )
        await req('PUT', `/edit-note/${note._id}`, d.token, { title: 'edited' })
        const after = JSON.parse((await req('GET', '/get-all-notes', d.token)).text) as {
          notes: NoteBody[]
          message: string
        }
        assert.deepEqual(
          after.notes.map((n) => n.title),
          ['edited'],
        )
        assert.equal(after.message, 'All notes retrieved successfully')
      })

      it('searches title or content as a case-insensitive regular expression, own notes only', async () => {
        const res = await h.client.request('GET', '/search-notes?query=BUDGET', { token: c.token })
        assert.equal(res.status, 200)
        const body = res.json as { error: boolean; notes: NoteBody[]; message: string }
        assert.equal(body.error, false)
        assert.equal(body.message, 'Notes matching the search query retrieved successfully')
        assert.deepEqual(
          body.notes.map((n) => n.title),
          ['budget 2027', 'Meeting'],
        )
        const regex = await h.client.request('GET', `/search-notes?query=${encodeURIComponent('^(shop|ide)')}`, {
          token: c.token,
        })
        assert.deepEqual(
          (regex.json as { notes: NoteBody[] }).notes.map((n) => n.title),
          ['Shopping list', 'Ideas'],
        )
        const none = await h.client.request('GET', '/search-notes?query=zebra', { token: c.token })
        assert.deepEqual((none.json as { notes: NoteBody[] }).notes, [])
      })

      it('matches case-insensitively beyond ASCII, and . matches one whole character', async () => {
        const d = await register(h.client)
        await addNote(h.client, d.token, { title: 'Crème Brûlée', content: 'dessert 🍮 recipe' })
        const upper = await h.client.request('GET', `/search-notes?query=${encodeURIComponent('BRÛLÉE')}`, {
          token: d.token,
        })
        assert.deepEqual(
          (upper.json as { notes: NoteBody[] }).notes.map((n) => n.title),
          ['Crème Brûlée'],
        )
        const emoji = await h.client.request('GET', `/search-notes?query=${encodeURIComponent('dessert . recipe')}`, {
          token: d.token,
        })
        assert.equal((emoji.json as { notes: NoteBody[] }).notes.length, 1)
      })

      it('treats the query as a pattern, not a literal', async () => {
        const res = await h.client.request('GET', `/search-notes?query=${encodeURIComponent('c+ d?')}`, {
          token: c.token,
        })
        assert.deepEqual((res.json as { notes: NoteBody[] }).notes, [])
        const escaped = await h.client.request('GET', `/search-notes?query=${encodeURIComponent('\\(b\\)')}`, {
          token: c.token,
        })
        assert.deepEqual(
          (escaped.json as { notes: NoteBody[] }).notes.map((n) => n.title),
          ['Ideas'],
        )
      })

      it('answers 400 "Search query is required" for a missing or empty query (rule 1)', async () => {
        for (const path of ['/search-notes', '/search-notes?query=', '/search-notes?other=1']) {
          const res = await h.client.request('GET', path, { token: c.token })
          assert.equal(res.status, 400)
          assert.deepEqual(res.json, { error: true, message: 'Search query is required' })
        }
      })

      it('answers 400 for invalid patterns and backtracking features, never 500', async () => {
        for (const q of ['(', '[a-', '(a)\\1', '(?=a)', '(?<!a)b', 'a{99999}']) {
          const res = await h.client.request('GET', `/search-notes?query=${encodeURIComponent(q)}`, { token: c.token })
          assert.equal(res.status, 400, q)
          assert.equal((res.json as { error: boolean }).error, true)
          assert.match((res.json as { message: string }).message, /query/)
        }
      })

      it('answers 400 for a query over 500 characters or repeated', async () => {
        const long = await h.client.request('GET', `/search-notes?query=${'a'.repeat(501)}`, { token: c.token })
        assert.equal(long.status, 400)
        assert.deepEqual(long.json, { error: true, message: 'query must be at most 500 characters' })
        const twice = await h.client.request('GET', '/search-notes?query=a&query=b', { token: c.token })
        assert.equal(twice.status, 400)
        assert.deepEqual(twice.json, { error: true, message: 'query must be a string' })
      })

      it('tolerates a trailing slash', async () => {
        const res = await req('GET', '/get-all-notes/', c.token)
        assert.equal(res.status, 200)
        assert.equal((res.json as { notes: NoteBody[] }).notes.length, 4)
      })
    })
  })
}
