// The bench's PostgreSQL seeding (bench/postgres-seed.ts): the rows it writes in bulk must read
// back through the real driver exactly as the records given (text escapes, tags as text[], list
// order), the same data set must reuse its database, and every bench database must be dropped.
// Correctness only; the seeding speed is the bench's business.
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import pg from 'pg'
import { BenchDatabases, PostgresSeeder } from '../bench/postgres-seed.js'
import { makeNotes, makeUser } from '../bench/seed.js'
import { openPostgresStore } from '../src/store/postgres/index.js'
import type { NoteRecord } from '../src/store/types.js'
import { TEST_DATABASE_URL, serviceAvailable } from './support/services.js'
import { listedNotes } from './support/listed.js'

async function benchDatabaseNames(): Promise<string[]> {
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
  await admin.connect()
  try {
    const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [
      `notes_bench_${process.pid}_%`,
    ])
    return rows.map((r) => r.datname)
  } finally {
    await admin.end()
  }
}

if (serviceAvailable('postgresql')) {
  describe('bench PostgreSQL seeding', () => {
    const databases = new BenchDatabases(TEST_DATABASE_URL)
    after(() => databases.dropAll())

    it('writes users and notes that the driver reads back unchanged, across chunks', async () => {
      const url = await databases.create('/bench/data-1')
      assert.equal(await databases.create('/bench/data-1'), url, 'one database per data set')
      const user = makeUser('seeded')
      const other = makeUser('other')
      user.fullName = 'Nul\u0000 and \uffff escapes'
      const odd: NoteRecord = {
        ...(makeNotes(user._id, 1, 99).next().value as NoteRecord),
        title: 'tab\tnul\u0000',
        content: 'quote " backslash \\ brace { comma , \uffff',
        tags: ['a,b', '{x}', 'nul\u0000', '"q"', ''],
      }
      // 10 001 notes for the other user: more than one INSERT chunk.
      const notes = [...makeNotes(user._id, 30), odd]
      const seeder = new PostgresSeeder(url)
      await seeder.migrate()
      await seeder.insertUsers([user, other])
      assert.equal(await seeder.insertNotes(notes), notes.length)
      assert.equal(await seeder.insertNotes(makeNotes(other._id, 10_001)), 10_001)
      await seeder.close()

      const store = await openPostgresStore({ url, poolSize: 2 })
      try {
        assert.deepEqual(await store.findUserById(user._id), user)
        const listed = await listedNotes(store, user._id)
        const expected = [...notes].sort(
          (a, b) =>
            Number(b.isPinned) - Number(a.isPinned) ||
            (a.createdOn < b.createdOn ? 1 : a.createdOn > b.createdOn ? -1 : a._id < b._id ? 1 : -1),
        )
        assert.deepEqual(listed, expected)
        assert.equal((await listedNotes(store, other._id)).length, 10_001)
      } finally {
        await store.close()
      }
    })

    it('settles a data set after writes: statistics taken again, as autovacuum would', async () => {
      const dir = '/bench/data-settle'
      const url = await databases.create(dir)
      const seeder = new PostgresSeeder(url)
      await seeder.migrate()
      await seeder.close()
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        const analyzed = async () =>
          (
            await client.query<{ n: string }>(
              "SELECT analyze_count + autoanalyze_count AS n FROM pg_stat_user_tables WHERE relname = 'notes'",
            )
          ).rows[0]?.n
        const before = Number(await analyzed())
        await databases.settle(dir)
        // The statistics collector reports with a delay of up to a second or so.
        let after = before
        for (let i = 0; i < 50 && after === before; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100))
          await client.query('SELECT pg_stat_clear_snapshot()')
          after = Number(await analyzed())
        }
        assert.equal(after, before + 1)
      } finally {
        await client.end()
      }
    })

    it('seeds a data set twice into the same database', async () => {
      const dir = '/bench/data-2'
      const first = makeUser('first')
      const second = makeUser('second')
      for (const user of [first, second]) {
        const seeder = new PostgresSeeder(await databases.create(dir))
        await seeder.migrate()
        await seeder.insertUsers([user])
        await seeder.insertNotes(makeNotes(user._id, 3))
        await seeder.close()
      }
      const store = await openPostgresStore({ url: databases.urlOf(dir), poolSize: 2 })
      try {
        assert.equal((await listedNotes(store, first._id)).length, 3)
        assert.equal((await listedNotes(store, second._id)).length, 3)
      } finally {
        await store.close()
      }
    })

    it('drops every database it created', async () => {
      assert.equal((await benchDatabaseNames()).length, 3)
      await databases.dropAll()
      assert.deepEqual(await benchDatabaseNames(), [])
      assert.throws(() => databases.urlOf('/bench/data-1'), /no bench database/)
    })
  })
}
