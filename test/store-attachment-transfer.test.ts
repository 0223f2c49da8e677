// The Store's attachment methods for moving and transferring files (moveAttachmentBlob; importAttachments,
// attachmentsAfter, attachmentById) on both drivers, bare and under the cache layer: a key switched only while it is
// the one expected, records imported with their ids, linked to the notes already stored, and kept by the sweep.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { AttachmentRecord } from '../src/attachment-shape.js'
import { newId } from '../src/services/ids.js'
import type { UserRecord } from '../src/store/types.js'
import { makeNote, makeUser } from './support/store-contract.js'
import { type TestStore, openTestStore, storeKinds } from './support/stores.js'

const HOUR_MS = 3_600_000

function makeAttachment(userId: string, overrides: Partial<AttachmentRecord> = {}): AttachmentRecord {
  const _id = newId()
  const sha256 = createHash('sha256').update(_id).digest('hex')
  return {
    _id,
    name: 'file.txt',
    type: 'text/plain',
    size: 24,
    sha256,
    createdOn: '2026-01-01T00:00:00.000Z',
    userId,
    blobKey: `${sha256.slice(0, 2)}/${sha256}.${_id}`,
    ...overrides,
  }
}

/** Every page of two, each after the last record of the one before. */
async function pageAll(page: (after: string | undefined) => Promise<AttachmentRecord[]>): Promise<AttachmentRecord[]> {
  const all: AttachmentRecord[] = []
  for (let batch = await page(undefined); batch.length; batch = await page(batch.at(-1)!._id)) {
    assert.ok(batch.length <= 2)
    all.push(...batch)
  }
  return all
}

for (const kind of storeKinds()) {
  for (const caches of [false, true]) {
    describe(`attachment moves and transfer (${kind}${caches ? ', cached' : ''})`, () => {
      let store: TestStore
      let owner: UserRecord
      let other: UserRecord
      before(async () => {
        store = await openTestStore(kind, caches)
        owner = makeUser()
        other = makeUser()
        await store.importUsers([owner, other])
      })
      after(async () => store.close())

      it('switches a record to a new key only while it still names the old one', async () => {
        const record = makeAttachment(owner._id)
        assert.equal(await store.insertAttachment(record), true)
        assert.equal(await store.moveAttachmentBlob(record._id, 'not/its-key', 'elsewhere'), false)
        assert.equal((await store.findAttachment(owner._id, record._id))!.blobKey, record.blobKey)

        assert.equal(await store.moveAttachmentBlob(record._id, record.blobKey, record._id), true)
        assert.deepEqual(await store.findAttachment(owner._id, record._id), { ...record, blobKey: record._id })
        assert.deepEqual(await store.knownBlobKeys([record.blobKey, record._id]), new Set([record._id]))
        // The same key again (between two drivers that key by id) is a switch that changes nothing.
        assert.equal(await store.moveAttachmentBlob(record._id, record._id, record._id), true)
        assert.equal(await store.moveAttachmentBlob(record._id, record.blobKey, 'again'), false, 'moved already')

        await store.deleteAttachment(owner._id, record._id)
        assert.equal(await store.moveAttachmentBlob(record._id, record._id, 'after'), false, 'erased')
      })

      it('imports records with their ids, once; a taken id is "exists", a missing account "missing-user"', async () => {
        const first = makeAttachment(owner._id, { name: 'ä b.png', type: 'image/png', size: 3_000_000_000 })
        const second = makeAttachment(other._id)
        const orphan = makeAttachment(newId())
        assert.deepEqual(await store.importAttachments([first, second, orphan]), [
          'inserted',
          'inserted',
          'missing-user',
        ])
        assert.deepEqual(await store.importAttachments([]), [])
        assert.deepEqual(await store.importAttachments([{ ...first, name: 'other' }, second]), ['exists', 'exists'])
        assert.deepEqual(await store.attachmentById(first._id), first)
        assert.deepEqual(await store.findAttachment(other._id, second._id), second)
        assert.equal(await store.attachmentById(orphan._id), undefined)
        assert.equal(await store.attachmentById(newId()), undefined)
      })

      it('pages every record, or one account’s, in _id order', async () => {
        const mine = [makeAttachment(owner._id), makeAttachment(owner._id), makeAttachment(owner._id)]
        const theirs = [makeAttachment(other._id), makeAttachment(other._id)]
        await store.importAttachments([...theirs, ...mine])
        const sorted = (records: AttachmentRecord[]) => [...records].sort((x, y) => (x._id < y._id ? -1 : 1))
        const all = await pageAll((after) => store.attachmentsAfter(after, 2))
        assert.deepEqual(all, sorted(all))
        for (const record of [...mine, ...theirs])
          assert.deepEqual(
            all.find((r) => r._id === record._id),
            record,
          )
        const owners = await pageAll((after) => store.attachmentsAfter(after, 2, owner._id))
        assert.ok(owners.every((r) => r.userId === owner._id))
        for (const record of mine) assert.ok(owners.some((r) => r._id === record._id))
      })

      it('links an imported record to the notes, trash and revisions already stored that link to it', async () => {
        const user = makeUser()
        await store.importUsers([user])
        const linked = makeAttachment(user._id)
        const unlinked = makeAttachment(user._id)
        const url = `/attachments/${linked._id}/file.txt`
        const live = makeNote(user._id, { content: `see ![f](${url})` })
        const trashed = makeNote(user._id, { title: `title ${url}` })
        const edited = makeNote(user._id, { content: 'no link any more' })
        const unrelated = makeNote(user._id, { content: 'nothing' })
        // Another account's note naming the same id makes no link (a link counts only within an account).
        const foreign = makeNote(other._id, { content: url })
        assert.deepEqual(await store.importNotes([live, edited, unrelated, foreign]), Array(4).fill('inserted'))
        assert.deepEqual(await store.importTrash([{ ...trashed, deletedOn: '2026-02-01T00:00:00.000Z' }]), ['inserted'])
        const revision = {
          _id: newId(),
          noteId: edited._id,
          userId: user._id,
          title: 't',
          content: `was ${url}`,
          tags: [],
          isPinned: false,
          editedOn: '2025-12-01T00:00:00.000Z',
          replacedOn: edited.updatedOn,
        }
        assert.deepEqual(await store.importRevisions([revision]), ['inserted'])

        assert.deepEqual(await store.importAttachments([linked, unlinked]), ['inserted', 'inserted'])
        const listed = await store.listAttachments(user._id)
        const notesOf = (id: string) => listed.find((r) => r._id === id)?.notes
        assert.deepEqual(notesOf(linked._id), [live._id, trashed._id, edited._id].sort())
        assert.deepEqual(notesOf(unlinked._id), [])
        const theirs = await store.listAttachments(other._id)
        assert.ok(theirs.every((r) => r._id !== linked._id))
      })

      it('keeps an imported record nothing links to for the grace period, from the import on', async () => {
        const user = makeUser()
        await store.importUsers([user])
        // Uploaded long ago: taken for an upload never linked, the sweep would erase it at once.
        const record = makeAttachment(user._id, { createdOn: '2020-01-01T00:00:00.000Z' })
        assert.deepEqual(await store.importAttachments([record]), ['inserted'])
        const future = new Date(Date.now() + 365 * 24 * HOUR_MS).toISOString()
        const anHourAgo = new Date(Date.now() - HOUR_MS).toISOString()
        const swept = async (unreferencedBefore: string) => {
          const erased = await store.sweepAttachments({ uploadedBefore: future, unreferencedBefore })
          return erased.some((e) => e._id === record._id)
        }
        assert.equal(await swept(anHourAgo), false, 'its grace period began with the import')
        assert.ok(await store.findAttachment(user._id, record._id))
        assert.equal(await swept(new Date(Date.now() + HOUR_MS).toISOString()), true, 'and ends like any other')
      })
    })
  }
}
