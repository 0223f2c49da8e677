// What keeps an attachment: links from a live note, a trashed one or a kept revision, on both stores and with the
// cache layer on and off. The sweep erases an upload no note ever linked to after a day, and one unlinked for
// ATTACHMENT_GRACE_DAYS, with its bytes; deleting the account erases its files.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { ListedAttachmentAnswer } from '../src/attachment-shape.js'
import { sweepAttachments } from '../src/services/attachments-sweep.js'
import { type Account, type Harness, addNote, register, startHarness } from './support/harness.js'
import { openTestStore, storeKinds } from './support/stores.js'
import { uploaded } from './support/attachments.js'

const DAY_MS = 86_400_000
const GRACE_DAYS = 7

async function linkedFrom(h: Harness, token: string, id: string): Promise<string[] | undefined> {
  const reply = await h.client.request('GET', '/get-attachments', { token })
  const files = (reply.json as { attachments: ListedAttachmentAnswer[] }).attachments
  return files.find((f) => f._id === id)?.notes
}

async function keysHeld(h: Harness): Promise<Set<string>> {
  const keys = new Set<string>()
  for await (const blob of h.blobs.list()) keys.add(blob.key)
  return keys
}

for (const storeKind of storeKinds()) {
  for (const caches of [true, false]) {
    describe(`attachment references and the sweep (${storeKind}, caches ${caches ? 'on' : 'off'})`, () => {
      let h: Harness
      let a: Account
      before(async () => {
        const config = {
          attachments: { ...(await import('../src/config.js')).defaultConfig.attachments, graceDays: GRACE_DAYS },
        }
        h = await startHarness('inject', { storeKind, config, store: await openTestStore(storeKind, caches) })
        a = await register(h.client)
      })
      after(async () => h.close())

      const sweepAt = (msFromNow: number) => sweepAttachments(h.store, h.blobs, GRACE_DAYS, Date.now() + msFromNow)

      it('keeps a linked file through edit, trash and restore, and erases it a grace period after its last link', async () => {
        const file = await uploaded(h, a.token, { filename: 'p.txt', bytes: 'picture' })
        const note = await addNote(h.client, a.token, { title: 't', content: `see ![p](${file.url})` })
        assert.deepEqual(await linkedFrom(h, a.token, file._id), [note._id])
        // The link edited out: the revision that holds it keeps it.
        await h.client.request('PUT', `/edit-note/${note._id}`, { token: a.token, body: { content: 'no link' } })
        assert.deepEqual(await linkedFrom(h, a.token, file._id), [note._id])
        await h.client.request('DELETE', `/delete-note/${note._id}`, { token: a.token })
        assert.deepEqual(await linkedFrom(h, a.token, file._id), [note._id], 'the trash keeps the link')
        assert.equal((await sweepAt(30 * DAY_MS)).records, 0, 'a linked file is never swept')
        await h.client.request('PUT', `/restore-note/${note._id}`, { token: a.token })
        assert.deepEqual(await linkedFrom(h, a.token, file._id), [note._id])
        await h.client.request('DELETE', `/delete-note/${note._id}`, { token: a.token })
        await h.client.request('DELETE', `/delete-note-forever/${note._id}`, { token: a.token })
        assert.deepEqual(await linkedFrom(h, a.token, file._id), [], 'no link left')
        assert.equal((await sweepAt((GRACE_DAYS - 1) * DAY_MS)).records, 0, 'within the grace period')
        const key = (await h.store.findAttachment(a.userId, file._id))!.blobKey
        assert.ok((await keysHeld(h)).has(key))
        const swept = await sweepAt((GRACE_DAYS + 1) * DAY_MS)
        assert.ok(swept.records >= 1)
        assert.equal((await h.client.request('GET', file.url, { token: a.token })).status, 404)
        assert.ok(!(await keysHeld(h)).has(key), 'its bytes are gone too')
      })

      it("erases an upload no note linked to after a day, and never counts another account's link", async () => {
        const b = await register(h.client)
        const unlinked = await uploaded(h, a.token, { filename: 'u.txt', bytes: 'u' })
        const linked = await uploaded(h, a.token, { filename: 'l.txt', bytes: 'l' })
        await addNote(h.client, a.token, { title: `[l](${linked.url})`, content: 'in the title' })
        // b links to a's file: it must not keep it.
        await addNote(h.client, b.token, { title: 'b', content: `/attachments/${unlinked._id}` })
        assert.deepEqual(await linkedFrom(h, a.token, unlinked._id), [])
        assert.equal((await sweepAt(DAY_MS / 2)).records, 0)
        await sweepAt(DAY_MS + 60_000)
        assert.equal((await h.client.request('GET', unlinked.url, { token: a.token })).status, 404)
        assert.equal((await h.client.request('GET', linked.url, { token: a.token })).status, 200)
      })

      it("erases the bytes no record names once they are an hour old, and an account's files with it", async () => {
        const orphan = await h.blobs.write(
          '0123456789abcdef01234567',
          (await import('node:stream')).Readable.from([Buffer.from('o')]),
          10,
        )
        assert.equal((await sweepAt(0)).orphans, 0, 'young bytes may be an upload whose record is being written')
        assert.ok((await sweepAt(2 * 3_600_000)).orphans >= 1)
        assert.ok(!(await keysHeld(h)).has(orphan.key))

        const c = await register(h.client)
        const file = await uploaded(h, c.token, { filename: 'c.txt', bytes: 'c' })
        const key = (await h.store.findAttachment(c.userId, file._id))!.blobKey
        const gone = await h.client.request('DELETE', '/delete-account', {
          token: c.token,
          body: { password: c.password },
        })
        assert.equal(gone.status, 200, gone.text)
        assert.ok(!(await keysHeld(h)).has(key))
        assert.equal(await h.store.findAttachment(c.userId, file._id), undefined)
      })
    })
  }
}
