// What only the PostgreSQL driver has: migrations under an advisory lock (fresh, re-run,
// concurrent, upgrade with data), index use, a database lost while running (503 quickly, then
// recovery by itself) and one clear line when it cannot be reached at start.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { createPostgresPool, migrateDatabase, openPostgresStore } from '../src/store/postgres/index.js'
import { migrations } from '../src/store/postgres/migrations.js'
import { encodeText } from '../src/store/postgres/rows.js'
import { type TokenUser, createTokenService } from '../src/services/tokens.js'
import { StoreUnavailableError } from '../src/store/types.js'
import { type Harness, MODES, TEST_SECRET, addNote, register, startHarness } from './support/harness.js'
import { eventually } from './support/eventually.js'
import { SERVICE_LIMITS, cached } from './support/stores.js'
import {
  type TestDatabase,
  createTestDatabase,
  deleteAccountSilently,
  operatorPool,
  serviceAvailable,
} from './support/services.js'
import { makeNote, makeUser } from './support/store-contract.js'
import { type TcpProxy, startTcpProxy, throughProxy } from './support/tcp-proxy.js'

if (serviceAvailable('postgresql')) {
  describe('postgresql migrations', () => {
    const databases: TestDatabase[] = []
    const pools: pg.Pool[] = []
    /** An empty database, and a pool on it for looking inside. */
    async function fresh(): Promise<{ url: string; pool: pg.Pool }> {
      const db = await createTestDatabase()
      databases.push(db)
      // The tests' own writes (20 000 notes through the version triggers, say) are not held to
      // the service's 5 s statement timeout, which a loaded CI machine can exceed.
      const pool = createPostgresPool({ url: db.url, poolSize: 2, statementTimeoutMs: 120_000 })
      pools.push(pool)
      return { url: db.url, pool }
    }
    after(async () => {
      await Promise.all(pools.map((p) => p.end()))
      await Promise.all(databases.map((d) => d.drop()))
    })

    it('installs on an empty database, then finds nothing to do on a re-run', async () => {
      const { url, pool } = await fresh()
      assert.equal(await migrateDatabase({ url }), migrations.length)
      assert.equal(await migrateDatabase({ url }), 0)
      const { rows } = await pool.query<{ number: number }>('SELECT number FROM schema_changes ORDER BY number')
      assert.deepEqual(
        rows.map((r) => r.number),
        migrations.map((m) => m.version),
      )
      // And, for the builds before the shared numbers, the changes they had under their numbers.
      const earlier = await pool.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')
      assert.deepEqual(
        earlier.rows.map((r) => r.version),
        [1, 2, 3, 4, 5, 6, 9, 10],
      )
    })

    it('applies each migration once when several instances start at once', async () => {
      const { url } = await fresh()
      const applied = await Promise.all([1, 2, 3, 4].map(() => migrateDatabase({ url })))
      assert.equal(
        applied.reduce((a, b) => a + b, 0),
        migrations.length,
      )
    })

    it('upgrades a database that holds data, keeping the data', async () => {
      const { url } = await fresh()
      const store = await openPostgresStore({ url, poolSize: 2 })
      const user = makeUser()
      const note = makeNote(user._id, { title: 'kept', tags: ['x'] })
      await store.createUser(user)
      await store.insertNote(note)
      // A later migration, as a future release would add one.
      const next = {
        version: 1000,
        name: 'test-add-column',
        sql: 'ALTER TABLE notes ADD COLUMN archived boolean NOT NULL DEFAULT false',
      }
      assert.equal(await migrateDatabase({ url }, [...migrations, next]), 1)
      assert.deepEqual(await store.findNote(user._id, note._id), note)
      assert.deepEqual(await store.findUserById(user._id), user)
      await store.close()
    })

    it('gives notes written before migration 2 their stored JSON, the bytes JSON.stringify writes', async () => {
      const { url, pool } = await fresh()
      assert.equal(await migrateDatabase({ url }, migrations.slice(0, 1)), 1)
      const user = makeUser()
      const notes = ['plain', 'odd "q" \\ \u0000 \uffff \u2028 🎉'].map((text, i) =>
        makeNote(user._id, {
          title: text,
          content: text,
          tags: [text],
          createdOn: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
        }),
      )
      // Written as release 1 wrote them (opening a store would apply every migration first).
      await pool.query('INSERT INTO users VALUES ($1, $2, $3, $4, $5, $6)', [
        user._id,
        user.fullName,
        user.email,
        user.emailKey,
        user.passwordHash,
        user.createdOn,
      ])
      for (const n of notes) {
        await pool.query('INSERT INTO notes VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
          n._id,
          n.userId,
          encodeText(n.title),
          encodeText(n.content),
          n.tags.map(encodeText),
          n.isPinned,
          n.createdOn,
          n.updatedOn,
        ])
      }
      assert.equal(await migrateDatabase({ url }), migrations.length - 1)
      const store = await openPostgresStore({ url, poolSize: 2 })
      assert.equal((await store.listNotesJson(user._id)).toString(), JSON.stringify([...notes].reverse()))
      await store.close()
    })

    it("serves one user's listing from the per-user index, whatever other users hold", async () => {
      const { url, pool } = await fresh()
      await migrateDatabase({ url })
      await pool.query(
        `INSERT INTO users SELECT 'u' || i, 'n', 'e' || i, 'e' || i, 'h', 'c' FROM generate_series(1, 200) i`,
      )
      await pool.query(`INSERT INTO notes SELECT md5(i::text), 'u' || (i % 200 + 1), 't', 'c', '{}', i % 5 = 0,
        to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'x'
        FROM generate_series(1, 20000) i`)
      await pool.query('ANALYZE notes')
      const { rows } = await pool.query<{ 'QUERY PLAN': string }>(
        "EXPLAIN SELECT * FROM notes WHERE user_id = 'u7' ORDER BY is_pinned DESC, created_on DESC, id DESC",
      )
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n')
      // An index scan, or a bitmap scan plus a sort of this user's rows, through either index that
      // leads with the user (the list order's or the feed's): either way the cost follows this
      // user's notes, never the table's.
      assert.match(plan, /Index Scan (using|on) (notes_by_user_in_list_order|notes_in_feed_order)/)
      assert.doesNotMatch(plan, /Seq Scan/)
    })
  })

  for (const mode of MODES) {
    describe(`postgresql: a token whose account was deleted (${mode})`, () => {
      let db: TestDatabase
      let h: Harness
      before(async () => {
        db = await createTestDatabase()
        h = await startHarness(mode, {
          store: cached(await openPostgresStore({ url: db.url, poolSize: 2, limits: SERVICE_LIMITS })),
        })
      })
      after(async () => {
        await h.close()
        await db.drop()
      })

      it('gets 401 from GET /get-all-notes and GET /get-user once an operator deletes the account', async () => {
        const a = await register(h.client)
        await addNote(h.client, a.token, { title: 'gone soon', content: 'x' })
        assert.equal((await h.client.request('GET', '/get-all-notes', { token: a.token })).status, 200)
        const pool = operatorPool(db.url, 1)
        await pool.query('DELETE FROM notes WHERE user_id = $1', [a.userId])
        await pool.query('DELETE FROM users WHERE id = $1', [a.userId])
        await pool.end()
        // The deletion changed the account's version (migration 10) and notified every listener:
        // this instance keeps the session until the notice arrives, milliseconds after the commit,
        // and the promise is "within 1 second" (docs/caching.md).
        for (const path of ['/get-all-notes', '/get-user']) {
          await eventually(
            `${path} answered 401`,
            async () => (await h.client.request('GET', path, { token: a.token })).status === 401,
            1000,
          )
          const res = await h.client.request('GET', path, { token: a.token })
          assert.equal(res.status, 401, path)
          assert.equal(res.text, 'Unauthorized', path)
        }
      })

      it('answers add-note 401, not 500, when the account is gone by the time the note is written', async () => {
        const a = await register(h.client)
        // A token without a session (issued before sessions existed) is checked against the
        // account, which the cache layer keeps.
        const user = (await h.client.request('GET', '/get-user', { token: a.token })).json as { user: TokenUser }
        const token = createTokenService(TEST_SECRET).issue(user.user)
        assert.equal((await h.client.request('GET', '/get-user', { token })).status, 200)
        // Deleted with triggers off, so its version stays: the cache layer still vouches for it,
        // as it does for a deletion committed between the authenticate hook and the write.
        await deleteAccountSilently(db.url, a.userId)
        assert.equal((await h.client.request('GET', '/get-user', { token })).status, 200)
        const res = await h.client.request('POST', '/add-note', { token, body: { title: 't', content: 'c' } })
        assert.equal(res.status, 401)
        assert.equal(res.text, 'Unauthorized')
      })
    })
  }

  for (const mode of MODES) {
    describe(`postgresql outages (${mode})`, () => {
      let db: TestDatabase
      let proxy: TcpProxy
      let h: Harness
      before(async () => {
        db = await createTestDatabase()
        const target = new URL(db.url)
        proxy = await startTcpProxy(target.hostname, Number(target.port || 5432))
        const store = await openPostgresStore({
          url: throughProxy(db.url, proxy),
          poolSize: 2,
          connectTimeoutMs: 1000,
          statementTimeoutMs: 1000,
          limits: SERVICE_LIMITS,
        })
        h = await startHarness(mode, { store })
      })
      after(async () => {
        await h.close()
        await proxy.close()
        await db.drop()
      })

      it('answers 503 JSON quickly while the database is gone, and recovers by itself', async () => {
        const { token } = await register(h.client)
        await addNote(h.client, token, { title: 't', content: 'c' })
        const listNotes = () => h.client.request('GET', '/get-all-notes', { token })

        for (const proxyMode of ['reset', 'blackhole'] as const) {
          proxy.setMode(proxyMode)
          const started = Date.now()
          const res = await listNotes()
          // The bound is the point here: a lost database must not hang requests (connect timeout 1 s).
          assert.ok(Date.now() - started < 5000, `${proxyMode}: answered after ${Date.now() - started} ms`)
          assert.equal(res.status, 503, `${proxyMode}: ${res.text}`)
          assert.match(String(res.headers['content-type']), /^application\/json/)
          assert.deepEqual(res.json, { error: true, message: 'Service Unavailable: the database cannot be reached' })
        }

        proxy.setMode('forward')
        const back = await listNotes()
        assert.equal(back.status, 200)
        assert.deepEqual(
          (back.json as { notes: Array<{ title: string }> }).notes.map((n) => n.title),
          ['t'],
        )
      })
    })
  }

  describe('postgresql store closed', () => {
    it('answers a call made after close (a request outliving shutdown) with StoreUnavailableError', async () => {
      const db = await createTestDatabase()
      try {
        const store = await openPostgresStore({ url: db.url })
        await store.close()
        await assert.rejects(store.findUserById('nobody'), StoreUnavailableError)
        await assert.rejects(store.listNotesJson('nobody'), StoreUnavailableError)
      } finally {
        await db.drop()
      }
    })
  })

  describe('postgresql at start-up', () => {
    it('rejects with one line naming the database, without its password, when unreachable', async () => {
      const proxy = await startTcpProxy('127.0.0.1', 1)
      proxy.setMode('reset')
      try {
        const url = `postgres://postgres:hunter2@127.0.0.1:${proxy.port}/somewhere`
        const err = await openPostgresStore({ url, connectTimeoutMs: 1000 }).then(
          () => assert.fail('opened'),
          (e: unknown) => e as Error,
        )
        assert.ok(err instanceof StoreUnavailableError)
        assert.match(err.message, new RegExp(`^cannot reach PostgreSQL at 127\\.0\\.0\\.1:${proxy.port}/somewhere: `))
        assert.doesNotMatch(err.message, /hunter2|\n/)
      } finally {
        await proxy.close()
      }
    })
  })
}
