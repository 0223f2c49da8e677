// What the trash and history keep, and for how long (docs/history.md): the byte quota's trimming, TRASH_DAYS=0,
// HISTORY_REVISIONS, the sweep, and account deletion, on each store.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { defaultConfig } from '../src/config.js'
import { cutoffsAt } from '../src/services/retention.js'
import { storeLimitsOf } from '../src/store/limits.js'
import {
  type Account,
  type Harness,
  type NoteBody,
  addNote,
  register,
  startHarness,
  testConfig,
} from './support/harness.js'
import { openStoreWithSql } from './support/sql-stores.js'
import { storeKinds } from './support/stores.js'

const MB = 2 ** 20
type Revision = { content: string; editedOn: string }

for (const storeKind of storeKinds()) {
  describe(`retention (${storeKind})`, () => {
    const harnesses: Harness[] = []
    after(async () => Promise.all(harnesses.map((h) => h.close())))
    const start = async (overrides: Parameters<typeof startHarness>[1] = {}) => {
      const h = await startHarness('inject', { storeKind, ...overrides })
      harnesses.push(h)
      return h
    }
    const call = (h: Harness, method: string, path: string, a: Account, body?: unknown) =>
      h.client.request(method, path, { token: a.token, ...(body === undefined ? {} : { body }) })
    const historyOf = async (h: Harness, a: Account, id: string) =>
      ((await call(h, 'GET', `/get-note-history/${id}`, a)).json as { revisions: Revision[] }).revisions
    const trashOf = async (h: Harness, a: Account) =>
      ((await call(h, 'GET', '/get-trash', a)).json as { notes: NoteBody[] }).notes

    describe('with a 1 MB byte quota', () => {
      let h: Harness
      before(async () => {
        h = await start({ config: { noteQuota: { notes: 0, megabytes: 1 } } })
      })
      // About 290 KiB each: three bytes per character, at the content's 100 000-character limit.
      const big = (mark: string) => mark + '€'.repeat(99_000)

      it('never refuses a write for what the trash and history keep: their oldest go first', async () => {
        const a = await register(h.client)
        const note = await addNote(h.client, a.token, { title: 'big', content: big('v0') })
        for (let i = 1; i <= 6; i++)
          assert.equal((await call(h, 'PUT', `/edit-note/${note._id}`, a, { content: big(`v${i}`) })).status, 200)
        const revisions = await historyOf(h, a, note._id)
        // The live note (290 KiB) and at most two more states fit in 1 MB; the newest are kept.
        assert.ok(revisions.length >= 1 && revisions.length <= 2, String(revisions.length))
        assert.equal(revisions[0]?.content.slice(0, 2), 'v5')
        const usage = await h.store.noteUsage(a.userId)
        assert.ok(usage && usage.bytes <= MB)
      })

      it('lets a client that deletes notes to make room add again', async () => {
        const a = await register(h.client)
        const notes: NoteBody[] = []
        for (let i = 0; i < 3; i++)
          notes.push(await addNote(h.client, a.token, { title: `n${i}`, content: big(`n${i}`) }))
        const refused = await call(h, 'POST', '/add-note', a, { title: 'one more', content: big('more') })
        assert.equal(refused.status, 403)
        assert.equal((await call(h, 'DELETE', `/delete-note/${notes[0]?._id}`, a)).status, 200)
        assert.equal((await call(h, 'POST', '/add-note', a, { title: 'one more', content: big('more') })).status, 200)
        // Room was made by trimming the trash: a restore past the quota is refused as an add is.
        const trashed = await trashOf(h, a)
        if (trashed.length > 0) assert.equal((await call(h, 'PUT', `/restore-note/${notes[0]?._id}`, a)).status, 403)
      })
    })

    it('TRASH_DAYS=0 erases a deleted note at once, with its history', async () => {
      const h = await start({ config: { retention: { ...defaultConfig.retention, trashDays: 0 } } })
      const a = await register(h.client)
      const note = await addNote(h.client, a.token, { title: 't', content: 'one' })
      await call(h, 'PUT', `/edit-note/${note._id}`, a, { content: 'two' })
      assert.equal((await call(h, 'DELETE', `/delete-note/${note._id}`, a)).status, 200)
      assert.deepEqual(await trashOf(h, a), [])
      assert.equal((await call(h, 'GET', `/get-note-history/${note._id}`, a)).status, 404)
    })

    it('lists at most HISTORY_REVISIONS revisions of a note, the newest, and the sweep erases the rest', async () => {
      const retention = { ...defaultConfig.retention, historyRevisions: 3 }
      const limits = storeLimitsOf(testConfig({ retention }))
      const db = await openStoreWithSql(storeKind, limits)
      // The app runs on the store, which closes with the database.
      const h = await startHarness('inject', { store: db.store, config: { retention } })
      try {
        // What the database keeps, read through a store over it that lists more.
        const wide = await db.openAnother({ ...limits, keepRevisions: 100 })
        const a = await register(h.client)
        const note = await addNote(h.client, a.token, { title: 't', content: 'c0' })
        for (let i = 1; i <= 6; i++) await call(h, 'PUT', `/edit-note/${note._id}`, a, { content: `c${i}` })
        assert.deepEqual(
          (await historyOf(h, a, note._id)).map((r) => r.content),
          ['c5', 'c4', 'c3'],
        )
        assert.equal((await wide.noteHistory(a.userId, note._id))?.length, 6)
        assert.deepEqual(await h.store.sweep(cutoffsAt(retention, Date.now())), { notes: 0, revisions: 3, changes: 0 })
        assert.deepEqual(
          (await wide.noteHistory(a.userId, note._id))?.map((r) => r.content),
          ['c5', 'c4', 'c3'],
        )
      } finally {
        await h.app.close()
        await db.close()
      }
    })

    it('the sweep erases trash and revisions past their days, and sweeps running at once share the work', async () => {
      const h = await start()
      const a = await register(h.client)
      const note = await addNote(h.client, a.token, { title: 't', content: 'old' })
      await call(h, 'PUT', `/edit-note/${note._id}`, a, { content: 'new' })
      const gone = await addNote(h.client, a.token, { title: 'trashed', content: 'c' })
      await call(h, 'DELETE', `/delete-note/${gone._id}`, a)
      const today = cutoffsAt(defaultConfig.retention, Date.now())
      assert.deepEqual(await h.store.sweep(today), { notes: 0, revisions: 0, changes: 0 })
      assert.equal((await historyOf(h, a, note._id)).length, 1)
      // Ninety-one days on, all are past their retention (30 days of trash, 90 of history and of the change feed).
      const later = cutoffsAt(defaultConfig.retention, Date.now() + 91 * 86_400_000)
      const [first, second] = await Promise.all([h.store.sweep(later), h.store.sweep(later)])
      assert.ok(first.notes + second.notes >= 1)
      assert.ok(first.revisions + second.revisions >= 1)
      assert.ok(first.changes + second.changes >= 1, 'the trashed note leaves the change feed')
      assert.ok(!(await trashOf(h, a)).some((n) => n._id === gone._id))
      assert.deepEqual(await historyOf(h, a, note._id), [])
      assert.equal((await call(h, 'GET', `/get-note-history/${gone._id}`, a)).status, 404)
    })

    it('deleting the account erases its trash and history at once', async () => {
      const h = await start()
      const a = await register(h.client)
      const note = await addNote(h.client, a.token, { title: 't', content: 'one' })
      await call(h, 'PUT', `/edit-note/${note._id}`, a, { content: 'two' })
      const trashed = await addNote(h.client, a.token, { title: 'x', content: 'y' })
      await call(h, 'DELETE', `/delete-note/${trashed._id}`, a)
      assert.equal(
        (await h.client.request('DELETE', '/delete-account', { token: a.token, body: { password: a.password } }))
          .status,
        200,
      )
      assert.equal(await h.store.noteHistory(a.userId, note._id), undefined)
      assert.deepEqual(await h.store.listTrash(a.userId), [])
    })
  })
}
