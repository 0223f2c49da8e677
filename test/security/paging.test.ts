// The SQLite driver reads long lists and scans searches page by page so the event loop is not
// held (see no-hang.test.ts). Paging must not change the answers: lists and searches longer
// than a page come back complete, without duplicates, in list order.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { newId } from '../../src/services/ids.js'
import { compileSearchPattern } from '../../src/services/search.js'
import { openSqliteStore } from '../../src/store/sqlite/index.js'
import { LIST_PAGE_ROWS, SEARCH_PAGE_ROWS } from '../../src/store/sqlite/notes.js'
import type { NoteRecord } from '../../src/store/types.js'

const listOrder = (a: NoteRecord, b: NoteRecord) =>
  Number(b.isPinned) - Number(a.isPinned) || b.createdOn.localeCompare(a.createdOn) || b._id.localeCompare(a._id)

describe('paged reads (sqlite)', () => {
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
      const note = { _id: newId(), userId, title: `n${i}`, content: i % 2 ? 'odd' : 'even', tags: [], isPinned: i % 7 === 0, createdOn: at, updatedOn: at }
      made.push(note)
      await store.insertNote(note)
    }
    await store.insertNote({ ...made[0]!, _id: newId(), userId: other })
    const expected = [...made].sort(listOrder)
    assert.deepEqual((await store.listNotes(userId)).map((n) => n._id), expected.map((n) => n._id))
    const odd = await store.searchNotes(userId, compileSearchPattern('^odd$'))
    assert.ok(odd.length > SEARCH_PAGE_ROWS * 2)
    assert.deepEqual(odd.map((n) => n._id), expected.filter((n) => n.content === 'odd').map((n) => n._id))
    await store.close()
  })
})
