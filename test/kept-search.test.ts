// Both stores keep users' notes in memory for search (src/store/kept-search.ts). A kept search
// must never be stale: after any acknowledged change (through this store, another process or
// instance, an import, an operator's SQL) the next search shows it; a user whose notes are too
// large to keep is searched by the store's own query and answered the same.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type pg from 'pg'
import { compileSearchPattern } from '../src/services/search.js'
import { KEPT_SEARCH_STEP, type SearchableNote, searchKept } from '../src/store/kept-search.js'
import { openPostgresStore } from '../src/store/postgres/index.js'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import type { NoteRecord, Store } from '../src/store/types.js'
import { type TestDatabase, createTestDatabase, operatorPool, serviceAvailable } from './support/services.js'
import { makeNote, makeUser } from './support/store-contract.js'
import { sqliteOwnerOfThreePages } from './support/stores.js'
import { tempDir } from './support/temp.js'

const found = async (store: Store, userId: string, query: string) =>
  (JSON.parse((await store.searchNotesJson(userId, compileSearchPattern(query))).toString()) as NoteRecord[]).map((n) => n.title)

/** Patterns with and without runs the prefilter uses, one matching nothing. */
const PATTERNS = ['apple', 'a.*e', '^n[0-9]+$', 'PEAR|plum', 'nothing-matches-this']

describe('searchKept', () => {
  const note = (title: string, content = ''): SearchableNote => ({ title, content, json: JSON.stringify({ title }) })

  it('sends the JSON of the notes whose title or content matches, in the order kept', async () => {
    const notes = [note('apple pie'), note('banana'), note('cake', 'with APPLES'), note('pear')]
    const json = await searchKept(notes, compileSearchPattern('apple'))
    assert.equal(json.toString(), '[{"title":"apple pie"},{"title":"cake"}]')
    assert.equal((await searchKept(notes, compileSearchPattern('zzz'))).toString(), '[]')
  })

  it('yields to the event loop between steps of a long list', async () => {
    const notes = Array.from({ length: 2 * KEPT_SEARCH_STEP + 10 }, (_, i) => note(`n${i}`))
    let immediate = false
    setImmediate(() => (immediate = true))
    const json = await searchKept(notes, compileSearchPattern('^n[0-9]*5$'))
    assert.equal(immediate, true, 'an immediate queued before the search ran before it ended')
    assert.equal((JSON.parse(json.toString()) as unknown[]).length, 201)
  })
})

/** The checks every store runs; `other` is a second process or instance on the same data. */
function keptSearchCases(open: (cacheBytes?: number) => Promise<Store>, openOther: () => Promise<Store>) {
  let store: Store
  let other: Store
  before(async () => {
    store = await open()
    other = await openOther()
  })
  after(async () => {
    await store.close()
    await other.close()
  })

  it('shows every change made through the store at the next search', async () => {
    const owner = makeUser()
    await store.createUser(owner)
    const apple = makeNote(owner._id, { title: 'apple' })
    await store.insertNote(apple)
    // The first search runs the store's query, the second reads the notes to keep, the third
    // searches them in memory.
    for (let i = 0; i < 3; i++) assert.deepEqual(await found(store, owner._id, 'apple'), ['apple'])
    const pie = makeNote(owner._id, { title: 'pie', content: 'apple pie' })
    await store.insertNote(pie)
    assert.deepEqual(await found(store, owner._id, 'apple'), ['pie', 'apple'])
    await store.updateNote(owner._id, apple._id, { title: 'green apple', isPinned: true }, apple.updatedOn)
    assert.deepEqual(await found(store, owner._id, 'apple'), ['green apple', 'pie'])
    await store.updateNote(owner._id, pie._id, { content: 'cherry pie' }, pie.updatedOn)
    assert.deepEqual(await found(store, owner._id, 'apple'), ['green apple'])
    assert.deepEqual(await found(store, owner._id, 'cherry'), ['pie'])
    await store.deleteNote(owner._id, apple._id)
    assert.deepEqual(await found(store, owner._id, 'apple'), [])
    await store.importNotes([makeNote(owner._id, { title: 'imported apple', createdOn: '2099-01-01T00:00:00.000Z' })])
    assert.deepEqual(await found(store, owner._id, 'apple'), ['imported apple'])
  })

  it("shows another process's or instance's changes at the next search", async () => {
    const owner = makeUser()
    await store.createUser(owner)
    assert.deepEqual(await found(store, owner._id, 'plum'), []) // no notes yet
    const plum = makeNote(owner._id, { title: 'plum' })
    await other.insertNote(plum)
    assert.deepEqual(await found(store, owner._id, 'plum'), ['plum'])
    await other.updateNote(owner._id, plum._id, { title: 'ripe plum' }, plum.updatedOn)
    assert.deepEqual(await found(store, owner._id, 'plum'), ['ripe plum'])
    await other.deleteNote(owner._id, plum._id)
    assert.deepEqual(await found(store, owner._id, 'plum'), [])
  })

  it('answers a user too large to keep as with the cache off, before and after a change', async () => {
    // 64 KiB of cache keeps 8 KiB per user at most: 300 notes are more.
    const small = await open(64 * 1024)
    const off = await open(0)
    try {
      const owner = makeUser()
      await small.createUser(owner)
      const notes = Array.from({ length: 300 }, (_, i) =>
        makeNote(owner._id, { title: `n${i}`, content: i % 7 === 0 ? 'an apple' : 'a pear', isPinned: i % 50 === 0 }))
      await small.importNotes(notes)
      for (let round = 0; round < 2; round++) {
        for (const pattern of PATTERNS) {
          assert.deepEqual(await found(small, owner._id, pattern), await found(off, owner._id, pattern), pattern)
          assert.deepEqual(await found(small, owner._id, pattern), await found(off, owner._id, pattern), `${pattern}, again`)
        }
        await small.insertNote(makeNote(owner._id, { title: 'n999', content: 'apple', isPinned: true, createdOn: '2099-01-01T00:00:00.000Z' }))
      }
      assert.equal((await found(small, owner._id, 'apple'))[0], 'n999')
    } finally {
      await small.close()
      await off.close()
    }
  })
}

describe('kept search (sqlite)', () => {
  const dir = tempDir()
  after(() => dir.remove())
  keptSearchCases(
    async (cacheBytes) => openSqliteStore({ dataDir: dir.path, ...(cacheBytes === undefined ? {} : { listingCacheBytes: cacheBytes }) }),
    async () => openSqliteStore({ dataDir: dir.path }),
  )

  it('does not keep notes that a write overlapped while they were read', async () => {
    const { store, owner, at } = await sqliteOwnerOfThreePages()
    // The notes are read in three pages with a yield between them; the write commits after the
    // first was read, so this one answer misses the new note, and what was read must not be kept.
    assert.deepEqual(await found(store, owner._id, '^(n1|during)$'), ['n1']) // the query; leaves the mark
    const searching = found(store, owner._id, '^(n1|during)$') // reads the notes to keep
    await store.insertNote(makeNote(owner._id, { title: 'during', createdOn: at(100_000) }))
    assert.deepEqual(await searching, ['n1'])
    for (let i = 0; i < 3; i++) assert.deepEqual(await found(store, owner._id, '^(n1|during)$'), ['during', 'n1'])
    await store.close()
  })
})

if (serviceAvailable('postgresql')) {
  describe('kept search (postgresql)', () => {
    let db: TestDatabase
    let operator: pg.Pool
    before(async () => {
      db = await createTestDatabase()
      operator = operatorPool(db.url)
    })
    after(async () => {
      await operator.end()
      await db.drop()
    })
    const open = (cacheBytes?: number) => openPostgresStore({ url: db.url, poolSize: 3, ...(cacheBytes === undefined ? {} : { listingCacheBytes: cacheBytes }) })
    keptSearchCases(open, () => open())

    it('searches the kept notes while the database answers their version, and shows operator SQL at once', async () => {
      const store = await open()
      try {
        const owner = makeUser()
        await store.createUser(owner)
        const note = makeNote(owner._id, { title: 'kiwi' })
        await store.insertNote(note)
        assert.deepEqual(await found(store, owner._id, 'kiwi'), ['kiwi']) // the query; leaves the mark
        assert.deepEqual(await found(store, owner._id, 'kiwi'), ['kiwi']) // reads the notes to keep
        // A change the version does not see (its trigger off) is not read: the kept notes answer.
        await operator.query('ALTER TABLE notes DISABLE TRIGGER notes_changed')
        try {
          await operator.query("UPDATE notes SET title = 'unseen' WHERE id = $1", [note._id])
        } finally {
          await operator.query('ALTER TABLE notes ENABLE TRIGGER notes_changed')
        }
        assert.deepEqual(await found(store, owner._id, 'kiwi'), ['kiwi'])
        // Any change with the trigger on is seen at the next search.
        await operator.query("UPDATE notes SET title = 'kiwi by sql' WHERE id = $1", [note._id])
        assert.deepEqual(await found(store, owner._id, 'kiwi'), ['kiwi by sql'])
        await operator.query('DELETE FROM notes WHERE id = $1', [note._id])
        assert.deepEqual(await found(store, owner._id, 'kiwi'), [])
      } finally {
        await store.close()
      }
    })
  })
}
