// The SQLite store keeps users' listings in memory (src/store/sqlite/listing-cache.ts). A cached
// listing must never be stale: after any acknowledged change, from this process or another one
// on the same file, the next listing shows it.
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { newId } from '../src/services/ids.js'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { LIST_PAGE_ROWS } from '../src/store/sqlite/notes.js'
import type { NoteRecord, Store } from '../src/store/types.js'
import { makeNote, makeUser } from './support/store-contract.js'
import { sqliteOwnerOfThreePages } from './support/stores.js'
import { tempDir } from './support/temp.js'

const titles = async (store: Store, userId: string) => (JSON.parse((await store.listNotesJson(userId)).toString()) as NoteRecord[]).map((n) => n.title)

describe('listing cache (sqlite)', () => {
  const dir = tempDir()
  after(() => dir.remove())

  it('shows every change made through the store at the next listing', async () => {
    const store = openSqliteStore({ dataDir: ':memory:' })
    const owner = makeUser()
    const other = makeUser()
    await store.createUser(owner)
    await store.createUser(other)
    const first = makeNote(owner._id, { title: 'first' })
    await store.insertNote(first)
    assert.deepEqual(await titles(store, owner._id), ['first'])
    assert.deepEqual(await titles(store, owner._id), ['first']) // now from the cache

    const second = makeNote(owner._id, { title: 'second' })
    await store.insertNote(second)
    assert.deepEqual(await titles(store, owner._id), ['second', 'first'])
    await store.updateNote(owner._id, first._id, { title: 'first, edited', isPinned: true }, first.updatedOn)
    assert.deepEqual(await titles(store, owner._id), ['first, edited', 'second'])
    await store.updateNote(owner._id, first._id, { isPinned: false }, first.updatedOn)
    assert.deepEqual(await titles(store, owner._id), ['second', 'first, edited'])
    await store.deleteNote(owner._id, second._id)
    assert.deepEqual(await titles(store, owner._id), ['first, edited'])

    // Another user's change leaves this listing as it is, and shows in theirs.
    await store.insertNote(makeNote(other._id, { title: 'theirs' }))
    assert.deepEqual(await titles(store, owner._id), ['first, edited'])
    assert.deepEqual(await titles(store, other._id), ['theirs'])

    await store.importNotes([makeNote(owner._id, { title: 'imported', createdOn: '2099-01-01T00:00:00.000Z' })])
    assert.deepEqual(await titles(store, owner._id), ['imported', 'first, edited'])
    await store.close()
  })

  it('shows changes committed by another connection (another process) on the same file', async () => {
    const mine = openSqliteStore({ dataDir: dir.path })
    const theirs = openSqliteStore({ dataDir: dir.path })
    const owner = makeUser()
    await mine.createUser(owner)
    await mine.insertNote(makeNote(owner._id, { title: 'mine' }))
    assert.deepEqual(await titles(mine, owner._id), ['mine'])
    assert.deepEqual(await titles(theirs, owner._id), ['mine']) // both caches hold it now

    const note = makeNote(owner._id, { title: 'theirs' })
    await theirs.insertNote(note)
    assert.deepEqual(await titles(mine, owner._id), ['theirs', 'mine'])
    await theirs.deleteNote(owner._id, note._id)
    assert.deepEqual(await titles(mine, owner._id), ['mine'])
    await mine.insertNote(makeNote(owner._id, { title: 'mine again' }))
    assert.deepEqual(await titles(theirs, owner._id), ['mine again', 'mine'])
    await theirs.close()
    await mine.close()
  })

  it('does not keep a long listing that a write overlapped', async () => {
    const { store, owner, at } = await sqliteOwnerOfThreePages()
    // The listing yields between its three pages; the write commits after the first page was
    // read, so this one answer misses the new note, and must not be kept.
    const reading = store.listNotesJson(owner._id)
    await store.insertNote(makeNote(owner._id, { title: 'during', createdOn: at(100_000) }))
    assert.equal((JSON.parse((await reading).toString()) as NoteRecord[]).length, 2 * LIST_PAGE_ROWS + 5)
    const after = await titles(store, owner._id)
    assert.equal(after.length, 2 * LIST_PAGE_ROWS + 6)
    assert.equal(after[0], 'during')
    await store.close()
  })

  it('can be switched off, and answers the same', async () => {
    const store = openSqliteStore({ dataDir: ':memory:', listingCacheBytes: 0 })
    const owner = makeUser()
    await store.createUser(owner)
    await store.insertNote(makeNote(owner._id, { title: 'a', _id: newId() }))
    assert.deepEqual(await titles(store, owner._id), ['a'])
    await store.insertNote(makeNote(owner._id, { title: 'b', createdOn: '2099-01-01T00:00:00.000Z' }))
    assert.deepEqual(await titles(store, owner._id), ['b', 'a'])
    await store.close()
  })
})
