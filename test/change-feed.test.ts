// GET /get-changes (docs/sync.md, "The change feed") over every (mode, store) pair: the answers a client sees.
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

type Changes = {
  error: false
  changes: Array<{ noteId: string; note: NoteBody | null }>
  cursor: string
  more: boolean
  message: string
}
const EXPIRED = { error: true, message: 'Cursor expired: list all notes again' }

for (const { mode, storeKind } of targets()) {
  describe(`change feed (${mode}, ${storeKind})`, () => {
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
      h.client.request(method, path, { token, ...(body === undefined ? {} : { body }) })
    const changes = async (token: string, query = '') => {
      const res = await req('GET', `/get-changes${query}`, token)
      assert.equal(res.status, 200, res.text)
      return res.json as Changes
    }
    /** Every page from `cursor` on, applied to `notes`: what a client's replica becomes. */
    const follow = async (token: string, notes: Map<string, NoteBody>, cursor?: string, limit = 2) => {
      for (;;) {
        const page = await changes(
          token,
          `?limit=${limit}${cursor === undefined ? '' : `&since=${encodeURIComponent(cursor)}`}`,
        )
        for (const c of page.changes) {
          if (c.note) notes.set(c.noteId, c.note)
          else notes.delete(c.noteId)
        }
        cursor = page.cursor
        if (!page.more) return cursor
      }
    }
    const listed = async (token: string) =>
      ((await req('GET', '/get-all-notes', token)).json as { notes: NoteBody[] }).notes

    it('answers an empty account with no changes and a cursor that later reads every change', async () => {
      const fresh = await register(h.client, 'Fresh')
      const first = await changes(fresh.token)
      assert.deepEqual(
        { ...first, cursor: '' },
        { error: false, changes: [], cursor: '', more: false, message: 'Changes retrieved successfully' },
      )
      const note = await addNote(h.client, fresh.token, { title: 't', content: 'c' })
      const next = await changes(fresh.token, `?since=${first.cursor}`)
      assert.deepEqual(next.changes, [{ noteId: note._id, note }])
      assert.notEqual(next.cursor, first.cursor)
      assert.deepEqual((await changes(fresh.token, `?since=${next.cursor}`)).changes, [])
    })

    it('without since pages through every live note; from a cursor, each change once, as the note is now or null', async () => {
      const kept = await addNote(h.client, a.token, { title: 'kept', content: 'c' })
      const edited = await addNote(h.client, a.token, { title: 'edited', content: 'c' })
      const trashed = await addNote(h.client, a.token, { title: 'trashed', content: 'c' })
      const replica = new Map<string, NoteBody>()
      const cursor = await follow(a.token, replica)
      assert.deepEqual(
        [...replica.values()].sort((x, y) => x._id.localeCompare(y._id)),
        (await listed(a.token)).sort((x, y) => x._id.localeCompare(y._id)),
      )

      await req('PUT', `/edit-note/${edited._id}`, a.token, { title: 'edited twice' })
      await req('PUT', `/update-note-pinned/${edited._id}`, a.token, { isPinned: true })
      await req('DELETE', `/delete-note/${trashed._id}`, a.token)
      const page = await changes(a.token, `?since=${cursor}`)
      assert.deepEqual(
        page.changes.map((c) => c.noteId),
        [edited._id, trashed._id],
      )
      assert.equal(page.changes[0]!.note?.title, 'edited twice')
      assert.equal(page.changes[0]!.note?.isPinned, true)
      assert.equal(page.changes[1]!.note, null)
      assert.ok(!page.changes.some((c) => c.noteId === kept._id))

      await req('PUT', `/restore-note/${trashed._id}`, a.token)
      await follow(a.token, replica, cursor)
      assert.equal(replica.size, (await listed(a.token)).length)
      assert.equal(replica.get(trashed._id)?.title, 'trashed')
    })

    it("never shows another account's notes, and a cursor of another account is expired", async () => {
      await addNote(h.client, b.token, { title: 'bob', content: 'private' })
      const bobs = await changes(b.token)
      const alices = await changes(a.token)
      assert.ok(!alices.changes.some((c) => c.note?.content === 'private'))
      const crossed = await req('GET', `/get-changes?since=${encodeURIComponent(bobs.cursor)}`, a.token)
      assert.equal(crossed.status, 410)
      assert.deepEqual(crossed.json, EXPIRED)
    })

    it('answers 410 for a cursor that is no cursor or lies past the feed, and 400 for a bad limit', async () => {
      const { cursor } = await changes(a.token)
      const [epoch] = cursor.split('.')
      for (const since of ['nonsense', `${epoch}.zzzzzz`, `${epoch}.-1`, '', '.', `${epoch}.`]) {
        const res = await req('GET', `/get-changes?since=${encodeURIComponent(since)}`, a.token)
        assert.equal(res.status, 410, since)
        assert.deepEqual(res.json, EXPIRED)
      }
      for (const limit of ['0', '1001', 'x', '1.5']) {
        const res = await req('GET', `/get-changes?limit=${limit}`, a.token)
        assert.equal(res.status, 400, limit)
        assert.deepEqual(res.json, { error: true, message: 'limit must be an integer from 1 to 1000' })
      }
      assert.equal((await h.client.request('GET', '/get-changes')).status, 401)
    })

    it('forgets gone notes past CHANGES_DAYS: older cursors expire, newer ones still read', async () => {
      const fresh = await register(h.client, 'Sweeper')
      const note = await addNote(h.client, fresh.token, { title: 'x', content: 'y' })
      const before = (await changes(fresh.token)).cursor
      await req('DELETE', `/delete-note/${note._id}`, fresh.token)
      const after = (await changes(fresh.token, `?since=${before}`)).cursor
      const future = new Date(Date.now() + 86_400_000).toISOString()
      const swept = await h.store.sweep({ trashedBefore: '', replacedBefore: '', changedBefore: future })
      assert.ok(swept.changes >= 1)
      const old = await req('GET', `/get-changes?since=${before}`, fresh.token)
      assert.equal(old.status, 410)
      assert.deepEqual((await changes(fresh.token, `?since=${after}`)).changes, [])
    })
  })
}
