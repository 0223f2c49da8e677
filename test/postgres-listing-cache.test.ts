// The PostgreSQL store keeps users' listings in memory (src/store/postgres/versioned-cache.ts) and
// sends one only after the database, asked at the time of the request, says the user's notes have
// the version it was read at (migration 4, src/store/postgres/note-versions.ts). So a change made
// anywhere (another instance, an import, an operator's SQL) shows at the very next listing.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { createPostgresPool, createVersionPool, migrateDatabase, openPostgresStore } from '../src/store/postgres/index.js'
import { migrations } from '../src/store/postgres/migrations.js'
import { NoteVersionReader } from '../src/store/postgres/note-versions.js'
import { type Query, queryOver } from '../src/store/postgres/query.js'
import type { NoteRecord, Store } from '../src/store/types.js'
import { type TestDatabase, createTestDatabase, operatorPool, serviceAvailable } from './support/services.js'
import { makeNote, makeUser } from './support/store-contract.js'

const titles = async (store: Store, userId: string) => (JSON.parse((await store.listNotesJson(userId)).toString()) as NoteRecord[]).map((n) => n.title)

describe('note version reader: one query for the requests waiting at once', () => {
  /** A Query that records each call's user ids and answers when told to. */
  const fakeQuery = (versions: Map<string, string>) => {
    const calls: { ids: string[]; answer: () => void; fail: (err: Error) => void }[] = []
    const query = ((_name: string, _text: string, values: unknown[]) =>
      new Promise<{ rows: { user_id: string; version: string | undefined }[] }>((resolve, reject) => {
        const ids = values[0] as string[]
        calls.push({
          ids,
          answer: () => resolve({ rows: ids.filter((id) => versions.has(id)).map((id) => ({ user_id: id, version: versions.get(id) })) }),
          fail: reject,
        })
      })) as unknown as Query
    return { calls, query }
  }
  const settled = () => new Promise((resolve) => setImmediate(resolve))

  it('reads the users asked for in the same turn with one query, each once', async () => {
    const { calls, query } = fakeQuery(new Map([['a', '1'], ['b', '2,7']]))
    const reader = new NoteVersionReader(query)
    const reads = [reader.read('a'), reader.read('b'), reader.read('a'), reader.read('nobody')]
    await settled()
    assert.equal(calls.length, 1)
    assert.deepEqual(calls[0]?.ids, ['a', 'b', 'nobody'])
    calls[0]?.answer()
    assert.deepEqual(await Promise.all(reads), ['1', '2,7', '1', null])
  })

  it('never answers a request with a query sent before it arrived', async () => {
    const versions = new Map([['a', '1']])
    const { calls, query } = fakeQuery(versions)
    const reader = new NoteVersionReader(query)
    const early = reader.read('a')
    await settled()
    assert.equal(calls.length, 1)
    // Arrives while the first query is under way; the version changes meanwhile.
    const late = reader.read('a')
    versions.set('a', '2')
    calls[0]?.answer()
    assert.equal(await early, '2') // the fake answers with what holds when it answers
    await settled()
    assert.equal(calls.length, 2, 'the late request gets a query of its own, sent after the first ended')
    versions.set('a', '3')
    calls[1]?.answer()
    assert.equal(await late, '3')
  })

  it('fails every request of a failed query, and the next request sends a new one', async () => {
    const { calls, query } = fakeQuery(new Map([['a', '1']]))
    const reader = new NoteVersionReader(query)
    const reads = [reader.read('a'), reader.read('b')]
    await settled()
    calls[0]?.fail(new Error('database gone'))
    for (const r of reads) await assert.rejects(r, /database gone/)
    const again = reader.read('a')
    await settled()
    assert.equal(calls.length, 2)
    calls[1]?.answer()
    assert.equal(await again, '1')
  })
})

if (serviceAvailable('postgresql')) {
  describe('postgresql store: listings in memory, checked against the database on every request', () => {
    let db: TestDatabase
    let operator: pg.Pool
    let store: Store
    /** Another instance on the same database. */
    let other: Store
    before(async () => {
      db = await createTestDatabase()
      operator = operatorPool(db.url)
      store = await openPostgresStore({ url: db.url, poolSize: 3 })
      other = await openPostgresStore({ url: db.url, poolSize: 3 })
    })
    after(async () => {
      await store.close()
      await other.close()
      await operator.end()
      await db.drop()
    })

    const ownerWith = async (...names: string[]) => {
      const owner = makeUser()
      await store.createUser(owner)
      const notes = names.map((title, i) => makeNote(owner._id, { title, createdOn: `2026-01-0${i + 1}T00:00:00.000Z` }))
      for (const note of notes) assert.equal(await other.insertNote(note), true)
      return { owner, notes }
    }

    it('sends the same bytes again while the notes are unchanged', async () => {
      const { owner } = await ownerWith('a', 'b')
      const first = await store.listNotesJson(owner._id)
      const second = await store.listNotesJson(owner._id)
      assert.ok(first === second, 'the second listing is the kept one')
      assert.deepEqual(await titles(store, owner._id), ['b', 'a'])
    })

    it("shows another instance's every change at the next listing, without waiting", async () => {
      const { owner, notes } = await ownerWith('one', 'two')
      const [one, two] = notes as [NoteRecord, NoteRecord]
      assert.deepEqual(await titles(store, owner._id), ['two', 'one'])
      const three = makeNote(owner._id, { title: 'three', createdOn: '2026-01-09T00:00:00.000Z' })
      await other.insertNote(three)
      assert.deepEqual(await titles(store, owner._id), ['three', 'two', 'one'])
      await other.updateNote(owner._id, one._id, { title: 'one, edited' }, one.updatedOn)
      assert.deepEqual(await titles(store, owner._id), ['three', 'two', 'one, edited'])
      await other.updateNote(owner._id, one._id, { isPinned: true }, one.updatedOn)
      assert.deepEqual(await titles(store, owner._id), ['one, edited', 'three', 'two'])
      await other.deleteNote(owner._id, two._id)
      assert.deepEqual(await titles(store, owner._id), ['one, edited', 'three'])
      // Several notes of the user in one transaction: the version is set once, at the first.
      await other.importNotes([
        makeNote(owner._id, { title: 'imported', createdOn: '2026-01-08T00:00:00.000Z' }),
        makeNote(owner._id, { title: 'imported too', createdOn: '2026-01-07T00:00:00.000Z' }),
      ])
      assert.deepEqual(await titles(store, owner._id), ['one, edited', 'three', 'imported', 'imported too'])
      await other.importNotes([makeNote(owner._id, { title: 'imported last', createdOn: '2026-01-06T00:00:00.000Z' })])
      assert.deepEqual(await titles(store, owner._id), ['one, edited', 'three', 'imported', 'imported too', 'imported last'])
    })

    it("shows an operator's SQL at the next listing: insert, update, delete, moving a note, TRUNCATE", async () => {
      const { owner, notes } = await ownerWith('one')
      const { owner: second } = await ownerWith('theirs')
      const one = notes[0] as NoteRecord
      assert.deepEqual(await titles(store, owner._id), ['one'])
      assert.deepEqual(await titles(store, second._id), ['theirs'])
      await operator.query("UPDATE notes SET title = 'renamed' WHERE id = $1", [one._id])
      assert.deepEqual(await titles(store, owner._id), ['renamed'])
      await operator.query(
        `INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
         VALUES ('by-sql', $1, 'by sql', '', '{}', true, '2026-02-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z')`,
        [owner._id],
      )
      assert.deepEqual(await titles(store, owner._id), ['by sql', 'renamed'])
      await operator.query("UPDATE notes SET user_id = $1 WHERE id = 'by-sql'", [second._id])
      assert.deepEqual(await titles(store, owner._id), ['renamed'])
      assert.deepEqual(await titles(store, second._id), ['by sql', 'theirs'])
      await operator.query("DELETE FROM notes WHERE id = 'by-sql'")
      assert.deepEqual(await titles(store, second._id), ['theirs'])
      await operator.query('TRUNCATE notes')
      assert.deepEqual(await titles(store, owner._id), [])
      assert.deepEqual(await titles(store, second._id), [])
    })

    it('answers a deleted account as gone, even with its listing kept', async () => {
      const { owner } = await ownerWith('soon gone')
      assert.equal((await store.listNotesJsonOfAccount(owner._id))?.toString().includes('soon gone'), true)
      await operator.query('DELETE FROM notes WHERE user_id = $1', [owner._id])
      await operator.query('DELETE FROM users WHERE id = $1', [owner._id])
      assert.equal(await store.listNotesJsonOfAccount(owner._id), undefined)
    })

    it('lists every note written at once through two instances', async () => {
      const { owner } = await ownerWith()
      await store.listNotesJson(owner._id)
      const written = Array.from({ length: 24 }, (_, i) => makeNote(owner._id, { title: `n${String(i).padStart(2, '0')}`, createdOn: `2026-03-01T00:00:${String(i).padStart(2, '0')}.000Z` }))
      await Promise.all(written.map((note, i) => (i % 2 ? store : other).insertNote(note)))
      assert.deepEqual(await titles(store, owner._id), written.map((n) => n.title).reverse())
    })

    it('checks versions on a connection of its own, one per store, and none with the cache off', async () => {
      const { owner } = await ownerWith('a')
      const fresh = await openPostgresStore({ url: db.url, poolSize: 1 })
      const uncached = await openPostgresStore({ url: db.url, poolSize: 1, listingCacheBytes: 0 })
      const versionConnections = async () =>
        Number((await operator.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'notes-service versions'`)).rows[0]!.n)
      try {
        const before = await versionConnections()
        await fresh.listNotesJson(owner._id) // read, and kept
        await fresh.listNotesJson(owner._id) // kept: its version is checked
        await uncached.listNotesJson(owner._id)
        await uncached.listNotesJson(owner._id)
        assert.equal(await versionConnections(), before + 1)
      } finally {
        await fresh.close()
        await uncached.close()
      }
    })

    it('plans the version query once (generic plan) on that connection; a default connection plans it at every run', async () => {
      const { owner } = await ownerWith('a')
      const plans = async (pool: pg.Pool) => {
        try {
          const reader = new NoteVersionReader(queryOver(pool))
          for (let i = 0; i < 8; i++) assert.match((await reader.read(owner._id)) ?? '', /^\d+$/)
          // One connection: the same session, whose prepared statements this view shows.
          const { rows } = await pool.query<{ generic_plans: string; custom_plans: string }>(
            `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'notes.versions'`,
          )
          return { generic: Number(rows[0]!.generic_plans), custom: Number(rows[0]!.custom_plans) }
        } finally {
          await pool.end()
        }
      }
      assert.deepEqual(await plans(createVersionPool({ url: db.url })), { generic: 8, custom: 0 })
      // Why the setting is there: left to itself, PostgreSQL plans `= ANY($1)` for every run.
      assert.equal((await plans(createPostgresPool({ url: db.url, poolSize: 1 }))).custom, 8)
    })

    it('keeps the options the operator gives the connection (here a search_path) beside its own', async () => {
      const { owner } = await ownerWith('a')
      const url = new URL(db.url)
      url.searchParams.set('options', '-c search_path=public,pg_catalog')
      const pool = createVersionPool({ url: url.toString() })
      try {
        assert.match((await new NoteVersionReader(queryOver(pool)).read(owner._id)) ?? '', /^\d+$/)
        const { rows } = await pool.query<{ path: string; mode: string }>(`SELECT current_setting('search_path') AS path, current_setting('plan_cache_mode') AS mode`)
        assert.deepEqual(rows[0], { path: 'public,pg_catalog', mode: 'force_generic_plan' })
      } finally {
        await pool.end()
      }
    })

    it('reads every listing when its cache is off', async () => {
      const { owner } = await ownerWith('a')
      const uncached = await openPostgresStore({ url: db.url, poolSize: 1, listingCacheBytes: 0 })
      try {
        const first = await uncached.listNotesJson(owner._id)
        const second = await uncached.listNotesJson(owner._id)
        assert.ok(first !== second)
        assert.deepEqual(first, second)
      } finally {
        await uncached.close()
      }
    })
  })

  describe('postgresql migration 4: notes written before it', () => {
    let db: TestDatabase
    before(async () => {
      db = await createTestDatabase()
    })
    after(async () => db.drop())

    it('gives each user who has notes a version, so their listing is kept from the first read', async () => {
      await migrateDatabase({ url: db.url }, migrations.filter((m) => m.version < 4))
      const owner = makeUser()
      const client = new pg.Client({ connectionString: db.url })
      client.on('error', () => {}) // a broken connection also rejects the query in progress
      await client.connect()
      try {
        await client.query(`INSERT INTO users VALUES ($1, 'Old', 'old@example.com', 'old@example.com', 'hash', '2026-01-01T00:00:00.000Z')`, [owner._id])
        await client.query(
          `INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
           VALUES ('old-note', $1, 'old', '', '{}', false, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
          [owner._id],
        )
      } finally {
        await client.end()
      }
      const store = await openPostgresStore({ url: db.url, poolSize: 1 })
      try {
        const first = await store.listNotesJson(owner._id)
        assert.deepEqual((JSON.parse(first.toString()) as NoteRecord[]).map((n) => n.title), ['old'])
        assert.ok((await store.listNotesJson(owner._id)) === first)
      } finally {
        await store.close()
      }
    })
  })
}
