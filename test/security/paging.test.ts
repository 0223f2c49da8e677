// The SQLite driver reads long lists and scans searches page by page so the event loop is not
// held (see no-hang.test.ts). Paging must not change the answers: lists and searches longer
// than a page come back complete, without duplicates, in list order.
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { newId } from '../../src/services/ids.js'
import { openSqliteStore } from '../../src/store/sqlite/index.js'
import { LIST_PAGE_ROWS } from '../../src/store/sqlite/notes.js'
import { emptyInput } from '../../src/note-shape.js'
import type { NoteRecord } from '../../src/store/types.js'
import { searchNotes, searchWith, testSearchPool } from '../support/search.js'
import { listedNotes } from '../support/listed.js'
import { terms } from '../support/note-writes.js'

const listOrder = (a: NoteRecord, b: NoteRecord) =>
  Number(b.isPinned) - Number(a.isPinned) || b.createdOn.localeCompare(a.createdOn) || b._id.localeCompare(a._id)

describe('paged reads (sqlite)', () => {
  const pool = testSearchPool()
  after(() => pool.close())

  it('lists and searches more notes than a page holds, complete and in list order', async () => {
    const store = openSqliteStore({ dataDir: ':memory:' })
    const userId = newId()
    const other = newId()
    for (const id of [userId, other]) {
      await store.createUser({ _id: id, fullName: 'P', email: id, emailKey: id, passwordHash: 'x', createdOn: '' })
    }
    const count = LIST_PAGE_ROWS * 2 + 37
    const made: NoteRecord[] = []
    for (let i = 0; i < count; i++) {
      // repeated timestamps, so ties are broken by _id across page boundaries
      const at = new Date(1_700_000_000_000 + Math.floor(i / 3) * 1000).toISOString()
      const note = {
        _id: newId(),
        ...emptyInput(),
        userId,
        title: `n${i}`,
        content: i % 2 ? 'odd' : 'even',
        tags: [],
        isPinned: i % 7 === 0,
        createdOn: at,
        updatedOn: at,
      }
      made.push(note)
      await store.insertNote(note)
    }
    await store.insertNote({ ...made[0]!, _id: newId(), userId: other })
    const expected = [...made].sort(listOrder)
    assert.deepEqual(
      (await listedNotes(store, userId)).map((n) => n._id),
      expected.map((n) => n._id),
    )
    const odd = await searchNotes(pool, store, userId, '^odd$')
    assert.ok(odd.length > 1000)
    assert.deepEqual(
      odd.map((n) => n._id),
      expected.filter((n) => n.content === 'odd').map((n) => n._id),
    )
    await store.close()
  })

  it('never answers a note twice when it is unpinned while a long list is being read', async () => {
    const store = openSqliteStore({ dataDir: ':memory:' })
    const userId = newId()
    await store.createUser({
      _id: userId,
      fullName: 'P',
      email: userId,
      emailKey: userId,
      passwordHash: 'x',
      createdOn: '',
    })
    const at = (i: number) => new Date(1_700_000_000_000 + i * 1000).toISOString()
    const count = LIST_PAGE_ROWS * 2 + 5
    const notes = Array.from({ length: count }, (_, i) => ({
      _id: newId(),
      ...emptyInput(),
      userId,
      title: `n${i}`,
      content: 'odd',
      isPinned: i === 0,
      createdOn: at(i),
      updatedOn: at(i),
    }))
    await store.importNotes(notes)
    const pinned = notes[0] as NoteRecord
    for (const read of [
      () => store.listNotesJson(userId),
      () => searchWith(pool, 'odd', (matcher) => store.searchNotesJson(userId, matcher)),
    ]) {
      await store.updateNote(userId, pinned._id, { isPinned: true }, pinned.updatedOn, terms())
      // Read first as pinned (page 1); the unpin commits after page 2, and moves the note, the
      // oldest, to the last page, which is read after it.
      const reading = read()
      await store.updateNote(userId, pinned._id, { isPinned: false }, pinned.updatedOn, terms())
      const ids = (JSON.parse((await reading).toString('utf8')) as NoteRecord[]).map((n) => n._id)
      assert.equal(ids.filter((id) => id === pinned._id).length, 1)
      assert.equal(new Set(ids).size, ids.length)
      assert.equal(ids.length, count)
    }
    await store.close()
  })
})
