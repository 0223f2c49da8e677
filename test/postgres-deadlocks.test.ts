// Writes of one account that close a cycle of locks on PostgreSQL still answer what the contract says, never a 500
// (docs/postgresql.md, "Deadlocks"). Each connection keeps the account's usage in the slot of its backend's pid
// modulo 16, so two connections can share one: two instances are opened, one connection each, until their slots
// are the same, and an operator's advisory lock on that slot holds both requests at the point where, released in
// this order, an add-note and a restore-note would each wait for the other. SQLite has one writer at a time and no
// such cycle; the concurrent writes of both stores are the change feed's model test (change-feed-model.test.ts).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type pg from 'pg'
import { openPostgresStore } from '../src/store/postgres/index.js'
import { type Account, type Harness, type Reply, addNote, register, startHarness } from './support/harness.js'
import { listedNotes } from './support/listed.js'
import { type TestDatabase, createTestDatabase, operatorPool, serviceAvailable } from './support/services.js'
import { SERVICE_LIMITS, type TestStore, cached } from './support/stores.js'

const SLOTS = 16

describe(
  'PostgreSQL: writes whose locks close a cycle answer 200, not 500',
  { skip: !serviceAvailable('postgresql') },
  () => {
    let database: TestDatabase
    let operator: pg.Pool
    const harnesses: Harness[] = []
    const pids: number[] = []
    /** Each harness's one request connection. */
    const pidOf = new Map<Harness, number>()
    const slot = () => pidOf.get(harnesses[0]!)! % SLOTS

    /** The pid of the one request connection of a store just opened: the newest that ran its ping. */
    async function requestPid(store: TestStore): Promise<number> {
      await store.ping()
      const { rows } = await operator.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'notes-service'
         AND query = 'SELECT 1' AND pid <> ALL($1::int[]) ORDER BY backend_start DESC LIMIT 1`,
        [pids],
      )
      return rows[0]!.pid
    }

    async function instance(): Promise<{ store: TestStore; pid: number }> {
      const store = cached(await openPostgresStore({ url: database.url, poolSize: 1, limits: SERVICE_LIMITS }))
      return { store, pid: await requestPid(store) }
    }

    before(async () => {
      database = await createTestDatabase()
      operator = operatorPool(database.url, 2)
      const first = await instance()
      pids.push(first.pid)
      harnesses.push(await startHarness('http', { store: first.store }))
      pidOf.set(harnesses[0]!, first.pid)
      // One in 16 shares the first one's slot: 200 tries fail to find one about once in 400 000 runs.
      for (let tries = 0; harnesses.length < 2; tries++) {
        assert.ok(tries < 200, 'no connection shared the first one’s usage slot')
        const other = await instance()
        if (other.pid % SLOTS === first.pid % SLOTS) {
          harnesses.push(await startHarness('http', { store: other.store }))
          pidOf.set(harnesses[1]!, other.pid)
        } else await other.store.close()
        pids.push(other.pid)
      }
    })
    after(async () => {
      for (const h of harnesses) await h.close()
      await operator.end()
      await database.drop()
    })

    /** Until the connection `pid` waits for a lock: `advisory`, or any. */
    async function waitsForLock(pid: number, kind?: 'advisory'): Promise<void> {
      for (;;) {
        const { rows } = await operator.query<{ wait_event: string }>(
          `SELECT wait_event FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`,
          [pid],
        )
        if (rows.length > 0 && (kind === undefined || rows[0]!.wait_event === kind)) return
        await sleep(5)
      }
    }

    /** A request of the account's owner to one of the instances. */
    type Sent = [Harness, string, string, unknown?]
    let owner: Account

    /**
     * Holds what `lock` locks in an operator's transaction while `first` and then `second` start and wait, then lets
     * go: both must answer 200.
     */
    async function race(lock: [string, unknown[]], first: Sent, second: Sent, kind?: 'advisory') {
      const hold = await operator.connect()
      try {
        await hold.query('BEGIN')
        await hold.query(...lock)
        const answers: Promise<Reply>[] = []
        for (const [h, method, path, body] of [first, second]) {
          answers.push(h.client.request(method, path, { token: owner.token, body }))
          await waitsForLock(pidOf.get(h)!, kind)
        }
        await hold.query('COMMIT')
        for (const [i, answer] of (await Promise.all(answers)).entries()) {
          const [, method, path] = [first, second][i]!
          assert.equal(answer.status, 200, `${method} ${path}: ${answer.status} ${answer.text}`)
        }
      } finally {
        await hold.query('ROLLBACK').catch(() => {})
        hold.release()
      }
    }

    it('an add-note and a restore-note whose usage slot is taken in turn', async () => {
      const [a, b] = harnesses as [Harness, Harness]
      owner = await register(a.client)
      const trashed = await addNote(a.client, owner.token, { title: 'trashed', content: 'then restored' })
      assert.equal(
        (await a.client.request('DELETE', `/delete-note/${trashed._id}`, { token: owner.token })).status,
        200,
      )
      // The add takes the slot's advisory lock first; the restore, released second, would hold the slot's usage row.
      await race(
        ['SELECT pg_advisory_xact_lock(hashtext($1), $2)', [owner.userId, slot()]],
        [a, 'POST', '/add-note', { title: 'added', content: 'meanwhile' }],
        [b, 'PUT', `/restore-note/${trashed._id}`],
        'advisory',
      )
      assert.deepEqual((await listedNotes(a.store, owner.userId)).map((n) => n.title).sort(), ['added', 'trashed'])
    })

    it('a delete-note and an add-note whose usage row and notes version each wait for the other', async () => {
      const [a, b] = harnesses as [Harness, Harness]
      owner = await register(a.client)
      const doomed = await addNote(a.client, owner.token, { title: 'doomed', content: 'to the trash' })
      // The trash's usage first (the delete), the notes' version first (the add): each then waits for the other's.
      await race(
        ['SELECT 1 FROM account_usage WHERE user_id = $1 AND shard = $2 FOR UPDATE', [owner.userId, slot()]],
        [b, 'DELETE', `/delete-note/${doomed._id}`],
        [a, 'POST', '/add-note', { title: 'added', content: 'meanwhile' }],
      )
      assert.deepEqual(
        (await listedNotes(a.store, owner.userId)).map((n) => n.title),
        ['added'],
      )
    })
  },
)
