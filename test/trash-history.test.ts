// Trash, revision history and If-Match (docs/history.md) over every (mode, store) pair: the answers a client sees.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  type Account,
  type Harness,
  type NoteBody,
  addNote,
  register,
  startHarness,
  targets,
} from './support/harness.js'

const MISSING_ID = '0123456789abcdef01234567'

type Revision = { _id: string; title: string; content: string; tags: string[]; isPinned: boolean; editedOn: string }

for (const { mode, storeKind } of targets()) {
  describe(`trash, history and If-Match (${mode}, ${storeKind})`, () => {
    let h: Harness
    let a: Account
    let b: Account
    before(async () => {
      h = await startHarness(mode, { storeKind })
      a = await register(h.client, 'Alice')
      b = await register(h.client, 'Bob')
    })
    after(async () => h.close())
    const req = (method: string, path: string, token: string, body?: unknown, headers?: Record<string, string>) =>
      h.client.request(method, path, {
        token,
        ...(body === undefined ? {} : { body }),
        ...(headers ? { headers } : {}),
      })
    const listed = async (token: string) =>
      ((await req('GET', '/get-all-notes', token)).json as { notes: NoteBody[] }).notes
    const trash = async (token: string) =>
      ((await req('GET', '/get-trash', token)).json as { notes: Array<NoteBody & { deletedOn: string }> }).notes
    const history = async (token: string, id: string) =>
      ((await req('GET', `/get-note-history/${id}`, token)).json as { revisions: Revision[] }).revisions

    it('delete keeps its answer, moves the note to the trash, and every contract endpoint stops seeing it', async () => {
      const note = await addNote(h.client, a.token, { title: 'gone soon', content: 'findme-trash' })
      const res = await req('DELETE', `/delete-note/${note._id}`, a.token)
      assert.equal(res.status, 200)
      assert.deepEqual(res.json, { error: false, note, message: 'Note deleted successfully' })
      assert.ok(!(await listed(a.token)).some((n) => n._id === note._id))
      const found = (await req('GET', '/search-notes?query=findme-trash', a.token)).json as { notes: NoteBody[] }
      assert.deepEqual(found.notes, [])
      for (const [method, path, body] of [
        ['PUT', `/edit-note/${note._id}`, { title: 'x' }],
        ['PUT', `/update-note-pinned/${note._id}`, { isPinned: true }],
        ['DELETE', `/delete-note/${note._id}`, undefined],
      ] as const) {
        const refused = await req(method, path, a.token, body)
        assert.equal(refused.status, 404, path)
        assert.deepEqual(refused.json, { error: true, message: 'Note not found' })
      }
      const trashed = await trash(a.token)
      const entry = trashed.find((n) => n._id === note._id)
      assert.ok(entry)
      assert.deepEqual({ ...entry, deletedOn: undefined }, { ...note, deletedOn: undefined })
      assert.ok(Date.parse(entry.deletedOn) >= Date.parse(note.updatedOn))
      assert.deepEqual(await trash(b.token), [])
    })

    it('lists the trash most recently deleted first, restores with a new version, and deletes forever', async () => {
      const first = await addNote(h.client, a.token, { title: 'first', content: 'c' })
      const second = await addNote(h.client, a.token, { title: 'second', content: 'c' })
      await req('DELETE', `/delete-note/${first._id}`, a.token)
      await req('DELETE', `/delete-note/${second._id}`, a.token)
      const ids = (await trash(a.token)).map((n) => n._id)
      assert.ok(ids.indexOf(second._id) < ids.indexOf(first._id))

      assert.equal((await req('PUT', `/restore-note/${first._id}`, b.token)).status, 404)
      const restored = await req('PUT', `/restore-note/${first._id}`, a.token)
      assert.equal(restored.status, 200)
      const body = restored.json as { error: boolean; note: NoteBody; message: string }
      assert.equal(body.message, 'Note restored successfully')
      assert.deepEqual({ ...body.note, updatedOn: '' }, { ...first, updatedOn: '' })
      assert.ok(body.note.updatedOn > first.updatedOn)
      assert.equal(restored.headers.etag, `"${body.note.updatedOn}"`)
      assert.ok((await listed(a.token)).some((n) => n._id === first._id))
      assert.equal((await req('PUT', `/restore-note/${first._id}`, a.token)).status, 404)

      assert.equal((await req('DELETE', `/delete-note-forever/${second._id}`, b.token)).status, 404)
      const erased = await req('DELETE', `/delete-note-forever/${second._id}`, a.token)
      assert.deepEqual(erased.json, { error: false, message: 'Note deleted forever' })
      assert.ok(!(await trash(a.token)).some((n) => n._id === second._id))
      assert.equal((await req('DELETE', `/delete-note-forever/${second._id}`, a.token)).status, 404)
      assert.equal((await req('GET', `/get-note-history/${second._id}`, a.token)).status, 404)
    })

    it('empties the trash, saying how many notes went', async () => {
      const c = await register(h.client, 'Carol')
      for (const title of ['x', 'y', 'z']) {
        const note = await addNote(h.client, c.token, { title, content: 'c' })
        await req('DELETE', `/delete-note/${note._id}`, c.token)
      }
      const kept = await addNote(h.client, b.token, { title: 'bob keeps', content: 'c' })
      await req('DELETE', `/delete-note/${kept._id}`, b.token)
      assert.deepEqual((await req('DELETE', '/empty-trash', c.token)).json, {
        error: false,
        deleted: 3,
        message: 'Trash emptied',
      })
      assert.deepEqual(await trash(c.token), [])
      assert.deepEqual((await req('DELETE', '/empty-trash', c.token)).json, {
        error: false,
        deleted: 0,
        message: 'Trash emptied',
      })
      assert.equal((await trash(b.token)).length, 1)
    })

    it('keeps the state before each change of title, content or tags, newest first; pinning keeps none', async () => {
      const note = await addNote(h.client, a.token, { title: 'v1', content: 'one', tags: ['a'] })
      await req('PUT', `/edit-note/${note._id}`, a.token, { title: 'v2' })
      await req('PUT', `/update-note-pinned/${note._id}`, a.token, { isPinned: true })
      await req('PUT', `/edit-note/${note._id}`, a.token, { content: 'two', tags: ['b'] })
      await req('PUT', `/edit-note/${note._id}`, a.token, { title: 'v2' }) // no change of text: no revision
      const revisions = await history(a.token, note._id)
      assert.deepEqual(
        revisions.map(({ title, content, tags, isPinned }) => ({ title, content, tags, isPinned })),
        [
          { title: 'v2', content: 'one', tags: ['a'], isPinned: true },
          { title: 'v1', content: 'one', tags: ['a'], isPinned: false },
        ],
      )
      assert.equal(revisions[1]?.editedOn, note.updatedOn)
      assert.ok(revisions.every((r) => /^[0-9a-f]{24}$/.test(r._id)))
      assert.equal((await req('GET', `/get-note-history/${note._id}`, b.token)).status, 404)
    })

    it('restores a revision as a new edit, itself undoable, and keeps history through the trash', async () => {
      const note = await addNote(h.client, a.token, { title: 'draft', content: 'first words' })
      await req('PUT', `/edit-note/${note._id}`, a.token, { content: 'second words' })
      const [older] = await history(a.token, note._id)
      assert.ok(older)
      const res = await req('PUT', `/restore-revision/${note._id}/${older._id}`, a.token)
      assert.equal(res.status, 200)
      const restored = res.json as { note: NoteBody; message: string }
      assert.equal(restored.message, 'Note updated successfully')
      assert.equal(restored.note.content, 'first words')
      assert.equal(res.headers.etag, `"${restored.note.updatedOn}"`)
      assert.equal((await history(a.token, note._id))[0]?.content, 'second words')

      await req('DELETE', `/delete-note/${note._id}`, a.token)
      assert.equal((await history(a.token, note._id)).length, 2)
      assert.equal((await req('PUT', `/restore-revision/${note._id}/${older._id}`, a.token)).status, 404)
      await req('PUT', `/restore-note/${note._id}`, a.token)
      assert.equal((await history(a.token, note._id)).length, 2)

      const wrong = await req('PUT', `/restore-revision/${note._id}/${MISSING_ID}`, a.token)
      assert.deepEqual([wrong.status, wrong.json], [404, { error: true, message: 'Revision not found' }])
      assert.equal((await req('PUT', `/restore-revision/${note._id}/${older._id}`, b.token)).status, 404)
    })

    it('answers 404, never 5xx, for malformed and foreign ids', async () => {
      const note = await addNote(h.client, a.token, { title: 't', content: 'c' })
      for (const id of ['nope', MISSING_ID, '%00', 'ZZZZZZZZZZZZZZZZZZZZZZZZ', note._id]) {
        const token = id === note._id ? b.token : a.token
        for (const [method, path] of [
          ['PUT', `/restore-note/${id}`],
          ['DELETE', `/delete-note-forever/${id}`],
          ['GET', `/get-note-history/${id}`],
          ['PUT', `/restore-revision/${id}/${id}`],
        ] as const) {
          const res = await req(method, path, token)
          assert.equal(res.status, 404, `${method} ${path}`)
        }
      }
    })

    it('sends the version as ETag and honours If-Match on edit, pin, delete and restore-revision', async () => {
      const note = await addNote(h.client, a.token, { title: 't', content: 'c' })
      const etag = `"${note.updatedOn}"`
      const stale = await req(
        'PUT',
        `/edit-note/${note._id}`,
        a.token,
        { title: 'mine' },
        { 'if-match': '"2000-01-01T00:00:00.000Z"' },
      )
      assert.equal(stale.status, 412)
      assert.deepEqual(stale.json, { error: true, message: 'Note was changed elsewhere', note })
      const edited = await req('PUT', `/edit-note/${note._id}`, a.token, { title: 'mine' }, { 'if-match': etag })
      assert.equal(edited.status, 200)
      const now = (edited.json as { note: NoteBody }).note
      assert.equal(edited.headers.etag, `"${now.updatedOn}"`)
      for (const [method, path, body] of [
        ['PUT', `/edit-note/${note._id}`, { title: 'again' }],
        ['PUT', `/update-note-pinned/${note._id}`, { isPinned: true }],
        ['DELETE', `/delete-note/${note._id}`, undefined],
        ['PUT', `/edit-note/${note._id}`, {}],
      ] as const) {
        const res = await req(method, path, a.token, body, { 'if-match': etag })
        assert.equal(res.status, 412, `${method} ${path}`)
        assert.deepEqual((res.json as { note: NoteBody }).note, now)
      }
      // A list holding the version, and `*`, match; a weak tag never does (strong comparison).
      const listedTags = await req(
        'PUT',
        `/update-note-pinned/${note._id}`,
        a.token,
        { isPinned: true },
        { 'if-match': `"x", "${now.updatedOn}"` },
      )
      assert.equal(listedTags.status, 200)
      const star = await req('PUT', `/edit-note/${note._id}`, a.token, { content: 'star' }, { 'if-match': '*' })
      assert.equal(star.status, 200)
      const current = (star.json as { note: NoteBody }).note
      const weak = await req(
        'PUT',
        `/edit-note/${note._id}`,
        a.token,
        { content: 'weak' },
        { 'if-match': `W/"${current.updatedOn}"` },
      )
      assert.equal(weak.status, 412)
      for (const malformed of ['abc', '"unterminated', `${current.updatedOn}`, '"a" "b"', '**']) {
        const res = await req('PUT', `/edit-note/${note._id}`, a.token, { content: 'bad' }, { 'if-match': malformed })
        assert.equal(res.status, 400, malformed)
        assert.equal((res.json as { error: boolean }).error, true)
      }
      const deleted = await req('DELETE', `/delete-note/${note._id}`, a.token, undefined, {
        'if-match': `"${current.updatedOn}"`,
      })
      assert.equal(deleted.status, 200)
    })

    it('makes every change strictly later, even within one millisecond', async () => {
      const note = await addNote(h.client, a.token, { title: 't', content: 'c' })
      const versions = [note.updatedOn]
      for (let i = 0; i < 10; i++) {
        const res = await req('PUT', `/update-note-pinned/${note._id}`, a.token, { isPinned: i % 2 === 0 })
        versions.push((res.json as { note: NoteBody }).note.updatedOn)
      }
      for (let i = 1; i < versions.length; i++)
        assert.ok(Date.parse(versions[i] as string) > Date.parse(versions[i - 1] as string), versions.join(' '))
    })

    it('lets exactly one of twenty parallel edits with the same If-Match through, keeping one revision', async () => {
      const note = await addNote(h.client, a.token, { title: 'race', content: 'start' })
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          req(
            'PUT',
            `/edit-note/${note._id}`,
            a.token,
            { content: `writer ${i}` },
            { 'if-match': `"${note.updatedOn}"` },
          ),
        ),
      )
      const statuses = answers.map((r) => r.status).sort()
      assert.deepEqual(statuses, [200, ...Array<number>(19).fill(412)])
      const revisions = await history(a.token, note._id)
      assert.deepEqual(
        revisions.map((r) => r.content),
        ['start'],
      )
    })

    it('an edit or pin that waits for a delete answers 404, never a 500, and the trash keeps what was stored', async () => {
      for (let round = 0; round < 20; round++) {
        const note = await addNote(h.client, a.token, { title: 'race', content: 'before' })
        const [del, pin, edit] = await Promise.all([
          req('DELETE', `/delete-note/${note._id}`, a.token),
          req('PUT', `/update-note-pinned/${note._id}`, a.token, { isPinned: true }),
          req('PUT', `/edit-note/${note._id}`, a.token, { content: 'after' }),
        ])
        assert.equal(del.status, 200)
        assert.ok(
          [200, 404].includes(pin.status) && [200, 404].includes(edit.status),
          `${pin.status} ${edit.status}: ${pin.text} ${edit.text}`,
        )
        const inTrash = (await trash(a.token)).find((n) => n._id === note._id)
        assert.equal(inTrash?.content, edit.status === 200 ? 'after' : 'before')
        assert.equal(inTrash?.isPinned, pin.status === 200)
      }
    })

    it('a delete racing an edit leaves the edited note in the trash, or refuses the delete with 412', async () => {
      for (let round = 0; round < 5; round++) {
        const note = await addNote(h.client, a.token, { title: 'race', content: 'before' })
        const etag = `"${note.updatedOn}"`
        const [edit, del] = await Promise.all([
          req('PUT', `/edit-note/${note._id}`, a.token, { content: 'after' }),
          req('DELETE', `/delete-note/${note._id}`, a.token, undefined, { 'if-match': etag }),
        ])
        assert.ok(edit.status === 200 || edit.status === 404, String(edit.status))
        assert.ok(del.status === 200 || del.status === 412, String(del.status))
        const inTrash = (await trash(a.token)).find((n) => n._id === note._id)
        if (del.status === 200) {
          assert.equal(edit.status, 404)
          assert.equal(inTrash?.content, 'before')
        } else {
          assert.equal(edit.status, 200)
          assert.equal(inTrash, undefined)
          assert.equal((await listed(a.token)).find((n) => n._id === note._id)?.content, 'after')
        }
      }
    })
  })
}
