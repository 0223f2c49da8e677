// The Store's bulk methods for the trash and the history (importTrash, importRevisions, trashAfter, revisionsAfter) on
// both drivers, bare and under the cache layer: the outcome of each record, and keyset pages in _id order.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { newId } from '../src/services/ids.js'
import type { NoteRecord, StoredRevisionRecord, TrashedNoteRecord, UserRecord } from '../src/store/types.js'
import { makeNote, makeUser } from './support/store-contract.js'
import { type TestStore, openTestStore, storeKinds } from './support/stores.js'

const trashed = (note: NoteRecord, deletedOn = '2026-02-01T00:00:00.000Z'): TrashedNoteRecord => ({
  ...note,
  deletedOn,
})

function revisionOf(note: NoteRecord, overrides: Partial<StoredRevisionRecord> = {}): StoredRevisionRecord {
  const { title, content, tags, isPinned } = note
  return {
    _id: newId(),
    noteId: note._id,
    userId: note.userId,
    title,
    content,
    tags,
    isPinned,
    editedOn: note.createdOn,
    replacedOn: note.updatedOn,
    ...overrides,
  }
}

const byId = <T extends { _id: string }>(records: T[]) => [...records].sort((x, y) => (x._id < y._id ? -1 : 1))
/** note_revisions' key order: note, version, _id. */
const keyOf = (r: StoredRevisionRecord) => `${r.noteId} ${r.editedOn} ${r._id}`
const byKey = (records: StoredRevisionRecord[]) => [...records].sort((x, y) => (keyOf(x) < keyOf(y) ? -1 : 1))

/** Every page, each after the last record of the one before. */
async function pageAll<T>(page: (after: T | undefined) => Promise<T[]>): Promise<T[]> {
  const all: T[] = []
  for (let batch = await page(undefined); batch.length; batch = await page(batch[batch.length - 1])) {
    assert.ok(batch.length <= 2)
    all.push(...batch)
  }
  return all
}

for (const kind of storeKinds()) {
  for (const caches of [false, true]) {
    describe(`trash and history transfer (${kind}${caches ? ', cached' : ''})`, () => {
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

      it('imports trashed notes with their ids and dates, idempotently, keeping a note live or trashed, never both', async () => {
        const live = makeNote(owner._id)
        await store.importNotes([live])
        const deleted = makeNote(owner._id, { title: 'nul \u0000 and \uffff', tags: ['\u0000'] })
        const gone = trashed(deleted)
        const orphan = trashed(makeNote(newId()))
        assert.deepEqual(
          await store.importTrash([
            gone,
            { ...gone },
            { ...gone, deletedOn: '2026-03-01T00:00:00.000Z' },
            orphan,
            trashed(live),
          ]),
          ['inserted', 'exists', { differs: ['deletedOn'] }, 'missing-user', 'live'],
        )
        assert.deepEqual(await store.listTrash(owner._id), [gone])
        assert.deepEqual(await store.importNotes([deleted]), ['in-trash'])
        assert.deepEqual(await store.importTrash([]), [])
      })

      it('imports revisions of live and trashed notes, refusing those whose user has no such note', async () => {
        const live = makeNote(owner._id, { title: 'live' })
        const gone = makeNote(owner._id, { title: 'gone' })
        const others = makeNote(other._id)
        await store.importNotes([live, others])
        await store.importTrash([trashed(gone)])
        const ofLive = revisionOf(live, { title: 'before \u0000' })
        const ofGone = revisionOf(gone)
        assert.deepEqual(
          await store.importRevisions([
            ofLive,
            ofGone,
            { ...ofLive },
            { ...ofLive, content: 'other' },
            { ...ofLive, _id: newId() }, // the same version of the same note
            { ...ofLive, editedOn: '2020-01-01T00:00:00.000Z' },
            revisionOf(others, { userId: owner._id }),
            revisionOf(live, { noteId: newId() }),
            revisionOf(live, { userId: newId(), editedOn: '2019-01-01T00:00:00.000Z' }),
          ]),
          [
            'inserted',
            'inserted',
            'exists',
            { differs: ['content'] },
            { differs: ['_id'] },
            { differs: ['editedOn'] },
            'missing-note',
            'missing-note',
            'missing-user',
          ],
        )
        const shown = ({ _id, title, content, tags, isPinned, editedOn }: StoredRevisionRecord) => ({
          _id,
          title,
          content,
          tags,
          isPinned,
          editedOn,
        })
        assert.deepEqual(await store.noteHistory(owner._id, live._id), [shown(ofLive)])
        assert.deepEqual(await store.noteHistory(owner._id, gone._id), [shown(ofGone)])
        assert.deepEqual(await store.importRevisions([]), [])
      })

      it("pages through the trash in _id order and the revisions in key order, all or one user's", async () => {
        const mine = Array.from({ length: 5 }, () => trashed(makeNote(owner._id)))
        const theirs = Array.from({ length: 2 }, () => trashed(makeNote(other._id)))
        await store.importTrash([...mine, ...theirs])
        // Two versions of some notes, so that a page ends inside one note's history.
        const versions = ['2025-01-01T00:00:00.000Z', '2025-01-02T00:00:00.000Z']
        const revisions = [...mine, ...theirs].flatMap((note, i) =>
          versions.slice(0, 1 + (i % 2)).map((editedOn) => revisionOf(note, { editedOn })),
        )
        await store.importRevisions(revisions)

        const allTrash = await pageAll((after: TrashedNoteRecord | undefined) => store.trashAfter(after?._id, 2))
        assert.deepEqual(
          allTrash.map((n) => n._id),
          [...new Set(allTrash.map((n) => n._id))].sort(),
        )
        for (const note of [...mine, ...theirs])
          assert.deepEqual(
            allTrash.find((n) => n._id === note._id),
            note,
          )
        assert.deepEqual(
          await pageAll((after: TrashedNoteRecord | undefined) => store.trashAfter(after?._id, 2, other._id)),
          byId(theirs),
        )

        const allRevisions = await pageAll((after: StoredRevisionRecord | undefined) => store.revisionsAfter(after, 2))
        assert.deepEqual(allRevisions.map(keyOf), [...new Set(allRevisions.map(keyOf))].sort())
        for (const revision of revisions)
          assert.deepEqual(
            allRevisions.find((r) => r._id === revision._id),
            revision,
          )
        const theirRevisions = await pageAll((after: StoredRevisionRecord | undefined) =>
          store.revisionsAfter(after, 2, other._id),
        )
        assert.deepEqual(theirRevisions, byKey(revisions.filter((r) => r.userId === other._id)))
        assert.deepEqual(await store.trashAfter(undefined, 2, newId()), [])
        assert.deepEqual(await store.revisionsAfter(undefined, 2, newId()), [])
      })
    })
  }
}
