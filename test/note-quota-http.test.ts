// The per-account note quota over HTTP, on both stores, through inject and a real socket: 403
// `{error: true, message}` naming the limit on add-note and on an edit that grows past the byte
// limit; deletes, reads and pins always work; exactly the limit of parallel adds succeed.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { noteLimitMessage, storageLimitMessage } from '../src/errors.js'
import { storeLimitsOf } from '../src/store/limits.js'
import { type Account, type Harness, addNote, register, startHarness, targets, testConfig } from './support/harness.js'
import { openStoreWithSql } from './support/sql-stores.js'

const NOTES = 12
const MB = 1

for (const { mode, storeKind } of targets()) {
  describe(`note quota over HTTP (${mode}, ${storeKind})`, () => {
    let h: Harness
    before(async () => {
      h = await startHarness(mode, { storeKind, config: { noteQuota: { notes: NOTES, megabytes: MB } } })
    })
    after(async () => h.close())

    it('answers 403 naming the note limit, and takes a note again after a delete', async () => {
      const a: Account = await register(h.client)
      const ids: string[] = []
      for (let i = 0; i < NOTES; i++) ids.push((await addNote(h.client, a.token, { title: `n${i}`, content: 'c' }))._id)
      const refused = await h.client.request('POST', '/add-note', {
        token: a.token,
        body: { title: 'one more', content: 'c' },
      })
      assert.equal(refused.status, 403)
      assert.deepEqual(refused.json, { error: true, message: noteLimitMessage(NOTES) })
      assert.equal(
        refused.json && (refused.json as { message: string }).message,
        'Note limit reached: an account keeps at most 12 notes',
      )

      // Reads, pins and deletes still work at the limit; another account is not affected.
      const listed = await h.client.request('GET', '/get-all-notes', { token: a.token })
      assert.equal((listed.json as { notes: unknown[] }).notes.length, NOTES)
      assert.equal(
        (await h.client.request('PUT', `/update-note-pinned/${ids[1]}`, { token: a.token, body: { isPinned: true } }))
          .status,
        200,
      )
      assert.equal(
        (await h.client.request('PUT', `/edit-note/${ids[1]}`, { token: a.token, body: { title: 'n-1' } })).status,
        200,
      )
      assert.equal((await h.client.request('DELETE', `/delete-note/${ids[0]}`, { token: a.token })).status, 200)
      await addNote(h.client, a.token, { title: 'after the delete', content: 'c' })
      const b = await register(h.client)
      await addNote(h.client, b.token, { title: 'b', content: 'c' })
    })

    it('lets exactly the limit through when 40 adds of one account arrive at once', async () => {
      const a = await register(h.client)
      const replies = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          h.client.request('POST', '/add-note', { token: a.token, body: { title: `p${i}`, content: 'c' } }),
        ),
      )
      assert.equal(replies.filter((r) => r.status === 200).length, NOTES)
      for (const r of replies.filter((r) => r.status !== 200))
        assert.deepEqual([r.status, r.json], [403, { error: true, message: noteLimitMessage(NOTES) }])
      const listed = await h.client.request('GET', '/get-all-notes', { token: a.token })
      assert.equal((listed.json as { notes: unknown[] }).notes.length, NOTES)
    })

    it('answers 403 naming the storage limit for a note or an edit that would pass it; a shrinking edit passes', async () => {
      const a = await register(h.client)
      // Content is at most 100 000 characters: 3 bytes each for '€' make 300 000 bytes a note.
      const big = '€'.repeat(100_000)
      const ids: string[] = []
      for (let i = 0; i < 3; i++) ids.push((await addNote(h.client, a.token, { title: `big${i}`, content: big }))._id)
      const used = 3 * (4 + 300_000)
      const room = MB * 2 ** 20 - used // 148 564 bytes
      const tooBig = await h.client.request('POST', '/add-note', {
        token: a.token,
        body: { title: 'x', content: 'é'.repeat(room / 2) },
      })
      assert.deepEqual([tooBig.status, tooBig.json], [403, { error: true, message: storageLimitMessage(MB) }])
      assert.equal(
        (tooBig.json as { message: string }).message,
        'Storage limit reached: an account keeps at most 1 MB of notes (title, content and tags)',
      )
      // Exactly up to the limit: title 'x' (1 byte) and the rest in content (3 bytes a '€').
      assert.equal((room - 1) % 3, 0)
      const fits = await addNote(h.client, a.token, { title: 'x', content: '€'.repeat((room - 1) / 3) })
      const grow = await h.client.request('PUT', `/edit-note/${fits._id}`, { token: a.token, body: { title: 'xx' } })
      assert.deepEqual([grow.status, grow.json], [403, { error: true, message: storageLimitMessage(MB) }])
      const unchanged = await h.client.request('GET', '/get-all-notes', { token: a.token })
      assert.ok(
        (unchanged.json as { notes: Array<{ title: string }> }).notes.some((n) => n.title === 'x'),
        'a refused edit changes nothing',
      )
      const shrink = await h.client.request('PUT', `/edit-note/${ids[0]}`, {
        token: a.token,
        body: { content: 'small now' },
      })
      assert.equal(shrink.status, 200)
      assert.equal(
        (
          await h.client.request('PUT', `/edit-note/${fits._id}`, {
            token: a.token,
            body: { title: 'xx', tags: ['fits now'] },
          })
        ).status,
        200,
      )
    })
  })
}

describe('note quota switched off', () => {
  it('holds no account to a limit set to 0', async () => {
    // Two servers over one database, each with its store opened with its configured quota.
    const [limitedQuota, unlimitedQuota] = [
      { notes: 2, megabytes: 0 },
      { notes: 0, megabytes: 0 },
    ]
    const db = await openStoreWithSql('sqlite', storeLimitsOf(testConfig({ noteQuota: limitedQuota })))
    const unlimitedStore = await db.openAnother(storeLimitsOf(testConfig({ noteQuota: unlimitedQuota })))
    const limited = await startHarness('inject', { store: db.store, config: { noteQuota: limitedQuota } })
    const unlimited = await startHarness('inject', { store: unlimitedStore, config: { noteQuota: unlimitedQuota } })
    try {
      const a = await register(limited.client)
      for (let i = 0; i < 2; i++)
        await addNote(limited.client, a.token, { title: `n${i}`, content: '€'.repeat(100_000) })
      assert.equal(
        (await limited.client.request('POST', '/add-note', { token: a.token, body: { title: 't', content: 'c' } }))
          .status,
        403,
      )
      await addNote(unlimited.client, a.token, { title: 'n2', content: 'c' })
      assert.deepEqual(await limited.store.noteUsage(a.userId), { notes: 3, bytes: 2 * 300_002 + 3 })
    } finally {
      await unlimited.app.close()
      await limited.app.close()
      await db.close()
    }
  })
})
