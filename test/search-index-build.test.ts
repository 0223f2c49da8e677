// Building search's index for notes stored before it: on SQLite a build stopped half-way resumes where it stopped, with
// writes meanwhile on both sides of its progress, and ends with an index equal to the notes; on PostgreSQL the build
// is made once, an interrupted one (an invalid index) is made again, and without pg_trgm search still answers.
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import pg from 'pg'
import { buildSearchIndexLogged } from '../src/services/search-index-build.js'
import { openPostgresStore } from '../src/store/postgres/index.js'
import { SEARCH_INDEX } from '../src/store/postgres/search.js'
import { migrateSqlite, openSqliteDatabase, openSqliteStore } from '../src/store/sqlite/index.js'
import { migrations } from '../src/store/sqlite/migrations.js'
import { BUILD_BATCH } from '../src/store/sqlite/search.js'
import type { NoteRecord, Store } from '../src/store/types.js'
import { erase, terms } from './support/note-writes.js'
import { searchNotes, testSearchPool } from './support/search.js'
import { makeNote, makeUser } from './support/store-contract.js'
import { createTestDatabase, serviceAvailable } from './support/services.js'
import { tempDir } from './support/temp.js'

const pool = testSearchPool()
after(() => pool.close())

/** The ids of the owner's notes holding `needle` in title or content, in list order, as the listing has them. */
async function holding(store: Store, userId: string, needle: string): Promise<string[]> {
  const listed = JSON.parse((await store.listNotesJson(userId)).toString()) as NoteRecord[]
  return listed.filter((n) => `${n.title}\n${n.content}`.toLowerCase().includes(needle)).map((n) => n._id)
}

const found = async (store: Store, userId: string, pattern: string) =>
  (await searchNotes(pool, store, userId, pattern)).map((n) => n._id)

describe('building the search index on SQLite', () => {
  const dir = tempDir()
  after(() => dir.remove())
  const owner = makeUser()
  const count = 2 * BUILD_BATCH + 500

  it('indexes notes stored before migration 16, resuming a stopped build, with writes meanwhile', async () => {
    const old = openSqliteDatabase({ dataDir: dir.path })
    migrateSqlite(
      old,
      migrations.filter((m) => m.version < 16),
    )
    old
      .prepare(
        'INSERT INTO users (id, full_name, email, email_key, password_hash, created_on) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(owner._id, owner.fullName, owner.email, owner.emailKey, owner.passwordHash, owner.createdOn)
    const insert = old.prepare(
      'INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    )
    old.transaction(() => {
      for (let i = 0; i < count; i++) {
        const n = makeNote(owner._id, { title: `note ${i}`, content: i % 7 === 0 ? 'the Grocery list' : 'other text' })
        insert.run(n._id, n.userId, n.title, n.content, '[]', 0, n.createdOn, n.updatedOn)
      }
    })()
    old.close()

    let store: Store = openSqliteStore({ dataDir: dir.path })
    const expected = await holding(store, owner._id, 'grocery')
    assert.equal(expected.length, Math.ceil(count / 7))
    // Before the build, search reads every note.
    assert.deepEqual(await found(store, owner._id, 'grocery'), expected)
    const first = store
    await assert.rejects(first.buildSearchIndex(() => void first.close()))

    const through = () => {
      const db = openSqliteDatabase({ dataDir: dir.path })
      try {
        return db.prepare('SELECT through FROM note_text_build').pluck().get() as number | undefined
      } finally {
        db.close()
      }
    }
    const stoppedAt = through()
    assert.ok(stoppedAt !== undefined && stoppedAt >= BUILD_BATCH && stoppedAt < count, `stopped at ${stoppedAt}`)

    store = openSqliteStore({ dataDir: dir.path })
    const listed = JSON.parse((await store.listNotesJson(owner._id)).toString()) as NoteRecord[]
    const oldest = listed[listed.length - 1] as NoteRecord // indexed: a low rowid
    const newest = listed[0] as NoteRecord // not indexed yet
    const now = new Date().toISOString()
    await store.updateNote(owner._id, oldest._id, { content: 'grocery run' }, now, terms())
    await store.updateNote(owner._id, newest._id, { content: 'grocery again' }, now, terms())
    await store.deleteNote(owner._id, (listed[listed.length - 8] as NoteRecord)._id, erase())
    await store.deleteNote(owner._id, (listed[7] as NoteRecord)._id, erase())
    await store.insertNote(makeNote(owner._id, { content: 'a new grocery' }))
    const fractions: number[] = []
    assert.equal(await store.buildSearchIndex((f) => fractions.push(f)), 'built')
    assert.ok(fractions.length >= 1 && fractions.every((f) => f > 0 && f <= 1), JSON.stringify(fractions))
    assert.equal(through(), undefined)
    assert.equal(await store.buildSearchIndex(() => assert.fail('nothing to build')), 'ready')

    assert.deepEqual(await found(store, owner._id, 'grocery'), await holding(store, owner._id, 'grocery'))
    assert.deepEqual(await found(store, owner._id, 'other text'), await holding(store, owner._id, 'other text'))
    await store.close()
    // FTS5's own check: the index holds exactly the notes' text.
    const db = openSqliteDatabase({ dataDir: dir.path })
    try {
      db.prepare("INSERT INTO note_text (note_text, rank) VALUES ('integrity-check', 1)").run()
    } finally {
      db.close()
    }
  })
})

describe('building the search index on PostgreSQL', { skip: !serviceAvailable('postgresql') }, () => {
  it('builds it once, builds an invalid one again, and searches without pg_trgm', async () => {
    const database = await createTestDatabase()
    const admin = new pg.Client({ connectionString: database.url })
    await admin.connect()
    let store = await openPostgresStore({ url: database.url })
    try {
      const owner = makeUser()
      await store.createUser(owner)
      await store.importNotes(
        Array.from({ length: 300 }, (_, i) =>
          makeNote(owner._id, { title: `n${i}`, content: i % 3 ? 'plain' : 'GROCERY list' }),
        ),
      )
      assert.equal(await store.buildSearchIndex(() => {}), 'built')
      assert.equal(await store.buildSearchIndex(() => {}), 'ready')
      await admin.query(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = '${SEARCH_INDEX}'::regclass`)
      assert.equal(await store.buildSearchIndex(() => {}), 'built')
      const valid = await admin.query<{ indisvalid: boolean }>(
        `SELECT indisvalid FROM pg_index WHERE indexrelid = '${SEARCH_INDEX}'::regclass`,
      )
      assert.equal(valid.rows[0]?.indisvalid, true)
      assert.deepEqual(await found(store, owner._id, 'grocery'), await holding(store, owner._id, 'grocery'))

      // A role that may not create extensions, on a database without pg_trgm.
      await store.close()
      await admin.query(`DROP EXTENSION pg_trgm CASCADE`)
      const role = `search_${owner._id.slice(-8)}`
      await admin.query(
        `CREATE ROLE ${role} LOGIN; GRANT ALL ON SCHEMA public TO ${role}; GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}; GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role}`,
      )
      try {
        const url = new URL(database.url)
        url.username = role
        store = await openPostgresStore({ url: url.toString() })
        const built = await store.buildSearchIndex(() => {})
        assert.ok(typeof built === 'object' && /pg_trgm/.test(built.unavailable), JSON.stringify(built))
        assert.deepEqual(await found(store, owner._id, 'grocery'), await holding(store, owner._id, 'grocery'))
        // The service says so once, as a warning.
        const warnings: string[] = []
        const log = { info: () => {}, error: () => {}, warn: (m: string) => warnings.push(m) } as unknown as Parameters<
          typeof buildSearchIndexLogged
        >[1]
        await buildSearchIndexLogged(store, log, () => false)
        assert.equal(warnings.length, 1)
        assert.match(
          warnings[0] as string,
          /^Search has no index and reads every note: the pg_trgm extension cannot be created/,
        )
      } finally {
        await store.close()
        await admin.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`)
      }
    } finally {
      await admin.end()
      await database.drop()
    }
  })
})
