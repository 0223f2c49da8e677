// The versions the cache layer checks (src/store/cache): read once per turn of the event loop for
// every lookup made in it, never by a read sent before a lookup was made (turn-batch.ts); on
// PostgreSQL on a connection of its own with a generic plan; and given to every account and
// every user with notes that existed before the migrations that keep them.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { oncePerTurn, perTurn } from '../src/store/cache/turn-batch.js'
import {
  createPostgresPool,
  createVersionPool,
  migrateDatabase,
  openPostgresStore,
} from '../src/store/postgres/index.js'
import { migrations } from '../src/store/postgres/migrations.js'
import type { StoreDriver } from '../src/store/driver.js'
import { type TestDatabase, createTestDatabase, operatorPool, serviceAvailable } from './support/services.js'
import { makeNote, makeUser } from './support/store-contract.js'
import { cached } from './support/stores.js'

describe('versions read per turn: one read for the lookups waiting at once', () => {
  /** A batch read that records each call's keys and answers when told to. */
  const fakeRead = (versions: Map<string, string>) => {
    const calls: { ids: string[]; answer: () => void; fail: (err: Error) => void }[] = []
    const read = (ids: string[]) =>
      new Promise<Map<string, string>>((resolve, reject) => {
        calls.push({
          ids,
          answer: () => resolve(new Map(ids.filter((id) => versions.has(id)).map((id) => [id, versions.get(id)!]))),
          fail: reject,
        })
      })
    return { calls, read }
  }
  const settled = () => new Promise((resolve) => setImmediate(resolve))
  it('reads the users asked for in the same turn with one query, each once', async () => {
    const { calls, read } = fakeRead(
      new Map([
        ['a', '1'],
        ['b', '2,7'],
      ]),
    )
    const reader = perTurn(read)
    const reads = [reader('a'), reader('b'), reader('a'), reader('nobody')]
    await settled()
    assert.equal(calls.length, 1)
    assert.deepEqual(calls[0]?.ids, ['a', 'b', 'nobody'])
    calls[0]?.answer()
    assert.deepEqual(await Promise.all(reads), ['1', '2,7', '1', undefined])
  })

  it('never answers a request with a query sent before it arrived', async () => {
    const versions = new Map([['a', '1']])
    const { calls, read } = fakeRead(versions)
    const reader = perTurn(read)
    const early = reader('a')
    await settled()
    assert.equal(calls.length, 1)
    // Arrives while the first query is under way; the version changes meanwhile.
    const late = reader('a')
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
    const { calls, read } = fakeRead(new Map([['a', '1']]))
    const reader = perTurn(read)
    const reads = [reader('a'), reader('b')]
    await settled()
    calls[0]?.fail(new Error('database gone'))
    for (const r of reads) await assert.rejects(r, /database gone/)
    const again = reader('a')
    await settled()
    assert.equal(calls.length, 2)
    calls[1]?.answer()
    assert.equal(await again, '1')
  })
})

describe('the version clock read once per turn: one shared read, never one started before the call', () => {
  /** A read that counts its calls and answers, when told to, with what `value` holds then. */
  const fakeClock = () => {
    const state = { value: 1, answers: [] as { answer: () => void; fail: (err: Error) => void }[] }
    const read = () =>
      new Promise<string>((resolve, reject) => {
        state.answers.push({ answer: () => resolve(String(state.value)), fail: reject })
      })
    return { state, read }
  }
  const settled = () => new Promise((resolve) => setImmediate(resolve))

  it('answers every call of a turn with one read, started after the turn', async () => {
    const { state, read } = fakeClock()
    const clock = oncePerTurn(read)
    const first = clock()
    const second = clock()
    assert.equal(state.answers.length, 0, 'nothing is read before the turn ends')
    await settled()
    assert.equal(state.answers.length, 1)
    state.answers[0]?.answer()
    assert.deepEqual(await Promise.all([first, second]), ['1', '1'])
  })

  it('gives a call made once a read has started a read of its own', async () => {
    const { state, read } = fakeClock()
    const clock = oncePerTurn(read)
    const early = clock()
    await settled()
    const late = clock()
    state.value = 2
    state.answers[0]?.answer()
    assert.equal(await early, '2')
    await settled()
    assert.equal(state.answers.length, 2, 'the late call is not answered by the read that started before it')
    state.value = 3
    state.answers[1]?.answer()
    assert.equal(await late, '3')
  })

  it('fails the calls of a failed read, and the next call reads again', async () => {
    const { state, read } = fakeClock()
    const clock = oncePerTurn(read)
    const failed = clock()
    await settled()
    state.answers[0]?.fail(new Error('database gone'))
    await assert.rejects(failed, /database gone/)
    const again = clock()
    await settled()
    state.answers[1]?.answer()
    assert.equal(await again, '1')
  })
})

if (serviceAvailable('postgresql')) {
  describe('postgresql versions: a connection of their own, generic plans', () => {
    let db: TestDatabase
    let operator: pg.Pool
    let driver: StoreDriver
    before(async () => {
      db = await createTestDatabase()
      operator = operatorPool(db.url)
      driver = await openPostgresStore({ url: db.url, poolSize: 3 })
    })
    after(async () => {
      await driver.close()
      await operator.end()
      await db.drop()
    })

    const ownerWith = async (...names: string[]) => {
      const owner = makeUser()
      await driver.createUser(owner)
      for (const title of names) assert.equal(await driver.insertNote(makeNote(owner._id, { title })), true)
      return owner
    }
    const versionConnections = async () =>
      Number(
        (
          await operator.query<{ n: string }>(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'notes-service versions'`,
          )
        ).rows[0]!.n,
      )

    it('reads versions on a connection of its own, one per store, opened by the first version read only', async () => {
      const owner = await ownerWith('a')
      const fresh = await openPostgresStore({ url: db.url, poolSize: 1 })
      try {
        const before = await versionConnections()
        await fresh.listNotesJson(owner._id)
        await fresh.findUserById(owner._id)
        assert.equal(await versionConnections(), before, 'the bare driver never reads a version')
        const store = cached(fresh)
        await store.listNotesJson(owner._id) // read, and kept
        await store.listNotesJson(owner._id) // kept: its version is checked
        assert.equal(await versionConnections(), before + 1)
      } finally {
        await fresh.close()
      }
    })

    it('answers both versions of a user, and none for an unknown id', async () => {
      const owner = await ownerWith('a')
      const empty = await ownerWith()
      const versions = await driver.userVersions([owner._id, empty._id, makeUser()._id])
      assert.deepEqual([...versions.keys()].sort(), [owner._id, empty._id].sort())
      assert.match(versions.get(owner._id)!.notes ?? '', /^\d+$/)
      assert.match(versions.get(owner._id)!.account, /^\d+$/)
      assert.equal(versions.get(empty._id)!.notes, null)
    })

    it('plans the version query once (generic plan) on that connection; a default connection plans it at every run', async () => {
      const owner = await ownerWith('a')
      const statement = 'SELECT user_id FROM account_versions WHERE user_id = ANY($1::text[])'
      const plans = async (pool: pg.Pool) => {
        try {
          for (let i = 0; i < 8; i++)
            await pool.query({ name: 'versions.test', text: statement, values: [[owner._id]] })
          // One connection: the same session, whose prepared statements this view shows.
          const { rows } = await pool.query<{ generic_plans: string; custom_plans: string }>(
            `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'versions.test'`,
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
      const url = new URL(db.url)
      url.searchParams.set('options', '-c search_path=public,pg_catalog')
      const pool = createVersionPool({ url: url.toString() })
      try {
        const { rows } = await pool.query<{ path: string; mode: string }>(
          `SELECT current_setting('search_path') AS path, current_setting('plan_cache_mode') AS mode`,
        )
        assert.deepEqual(rows[0], { path: 'public,pg_catalog', mode: 'force_generic_plan' })
      } finally {
        await pool.end()
      }
    })
  })

  describe('postgresql migrations 4 and 10: accounts and notes written before them', () => {
    let db: TestDatabase
    before(async () => {
      db = await createTestDatabase()
    })
    after(async () => db.drop())

    it('gives each account, and each user who has notes, a version, so they are kept from the first read', async () => {
      await migrateDatabase(
        { url: db.url },
        migrations.filter((m) => m.version < 4),
      )
      const owner = makeUser()
      const client = new pg.Client({ connectionString: db.url })
      client.on('error', () => {}) // a broken connection also rejects the query in progress
      await client.connect()
      try {
        await client.query(
          `INSERT INTO users VALUES ($1, 'Old', 'old@example.com', 'old@example.com', 'hash', '2026-01-01T00:00:00.000Z')`,
          [owner._id],
        )
        await client.query(
          `INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
           VALUES ('old-note', $1, 'old', '', '{}', false, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
          [owner._id],
        )
      } finally {
        await client.end()
      }
      const driver = await openPostgresStore({ url: db.url, poolSize: 1 })
      const store = cached(driver)
      try {
        const versions = (await driver.userVersions([owner._id])).get(owner._id)
        assert.ok(versions?.notes && versions.account)
        const first = await store.listNotesJson(owner._id)
        assert.ok((await store.listNotesJson(owner._id)) === first)
        const account = await store.findUserById(owner._id)
        assert.equal(account?.fullName, 'Old')
        assert.ok((await store.findUserById(owner._id)) === account)
      } finally {
        await store.close()
      }
    })
  })
}
