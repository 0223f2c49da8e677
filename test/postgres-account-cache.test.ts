// The PostgreSQL store's account cache (src/store/postgres/account-cache.ts): accounts come from
// memory while the account listener is live, an operator's change is forgotten when its notice
// arrives, and nothing is served from memory while the listener is lost.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { ListenedAccountCache } from '../src/store/postgres/account-cache.js'
import { AccountListener } from '../src/store/postgres/account-listener.js'
import { openPostgresStore } from '../src/store/postgres/index.js'
import { type Store, StoreUnavailableError, type UserRecord } from '../src/store/types.js'
import { eventually } from './support/eventually.js'
import { startNoticeFilter } from './support/notice-filter.js'
import { type TestDatabase, createTestDatabase, deleteAccountSilently, operatorPool, serviceAvailable } from './support/services.js'
import { makeUser } from './support/store-contract.js'

describe('listened account cache', () => {
  const user = makeUser()
  const reader = (value: UserRecord | undefined) => {
    const reads = { count: 0 }
    return { reads, read: async () => (reads.count++, value) }
  }

  it('reads every time until the listener is live, then keeps what it read', async () => {
    const cache = new ListenedAccountCache(10)
    const { reads, read } = reader(user)
    await cache.get(user._id, read)
    await cache.get(user._id, read)
    assert.equal(reads.count, 2)
    assert.equal(cache.size, 0)
    cache.setLive(true)
    await cache.get(user._id, read)
    assert.deepEqual(await cache.get(user._id, read), user)
    assert.equal(reads.count, 3)
  })

  it('forgets on a notice for the account, or for all, and on a loss, and never keeps an unknown id', async () => {
    const cache = new ListenedAccountCache(10)
    cache.setLive(true)
    const { reads, read } = reader(user)
    await cache.get(user._id, read)
    cache.forget('someone else')
    await cache.get(user._id, read)
    assert.equal(reads.count, 1)
    cache.forget(user._id)
    await cache.get(user._id, read)
    cache.forget(undefined)
    await cache.get(user._id, read)
    cache.setLive(false)
    cache.setLive(true)
    await cache.get(user._id, read)
    assert.equal(reads.count, 4)
    const missing = reader(undefined)
    await cache.get('nobody', missing.read)
    await cache.get('nobody', missing.read)
    assert.equal(missing.reads.count, 2)
  })

  it('applies a notice read in the same turn of the event loop as a lookup before answering it', async () => {
    const cache = new ListenedAccountCache(10)
    cache.setLive(true)
    const { reads, read } = reader(user)
    await cache.get(user._id, read) // kept now
    const lookup = cache.get(user._id, read)
    cache.forget(user._id) // the notice, handled after the request but in the same turn
    assert.deepEqual(await lookup, user)
    assert.equal(reads.count, 2, 'the lookup read the database again instead of answering from memory')
  })

  it('does not keep a read that a notice or a loss overlapped', async () => {
    for (const interrupt of [(c: ListenedAccountCache) => c.forget(user._id), (c: ListenedAccountCache) => c.setLive(false)]) {
      const cache = new ListenedAccountCache(10)
      cache.setLive(true)
      let release = () => {}
      let reading = () => {}
      const readStarted = new Promise<void>((resolve) => (reading = resolve))
      const slow = cache.get(user._id, () => new Promise((resolve) => {
        release = () => resolve(user)
        reading()
      }))
      await readStarted // the lookup waits for the end of its turn before it reads
      interrupt(cache)
      release()
      assert.deepEqual(await slow, user)
      assert.equal(cache.size, 0)
    }
  })
})

if (serviceAvailable('postgresql')) {
  describe('postgresql store: accounts in memory, kept honest by notices', () => {
    let db: TestDatabase
    let operator: pg.Pool
    let store: Store
    before(async () => {
      db = await createTestDatabase()
      operator = operatorPool(db.url)
      store = await openPostgresStore({ url: db.url, poolSize: 2, listenerRetryMs: 50, listenerCheckEveryMs: 100 })
    })
    after(async () => {
      await store.close()
      await operator.end()
      await db.drop()
    })

    const deleteSilently = (id: string) => deleteAccountSilently(db.url, id)
    const created = async () => {
      const user = makeUser()
      await store.createUser(user)
      assert.deepEqual(await store.findUserById(user._id), user)
      return user
    }

    it('answers nothing from memory once closed: the lookup goes to the ended pool and fails as unavailable', async () => {
      const closing = await openPostgresStore({ url: db.url, poolSize: 1 })
      const user = makeUser()
      await closing.createUser(user)
      assert.deepEqual(await closing.findUserById(user._id), user)
      await closing.close()
      await assert.rejects(closing.findUserById(user._id), StoreUnavailableError)
    })

    it('answers a known account from memory', async () => {
      const user = await created()
      await deleteSilently(user._id)
      assert.deepEqual(await store.findUserById(user._id), user)
    })

    it("forgets an account when an operator deletes or edits it, and all of them on TRUNCATE", async () => {
      const deleted = await created()
      await operator.query('DELETE FROM users WHERE id = $1', [deleted._id])
      await eventually('deletion seen', async () => (await store.findUserById(deleted._id)) === undefined)

      const edited = await created()
      await operator.query("UPDATE users SET full_name = 'Renamed' WHERE id = $1", [edited._id])
      await eventually('edit seen', async () => (await store.findUserById(edited._id))?.fullName === 'Renamed')

      const [a, b] = [await created(), await created()]
      await operator.query('TRUNCATE users CASCADE')
      await eventually('truncate seen', async () => (await store.findUserById(a._id)) === undefined && (await store.findUserById(b._id)) === undefined)
    })

    it('reads the database while its listener is lost, and uses memory again once it listens again', async () => {
      const kept = await created()
      const listener = () =>
        operator.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'notes-service account listener'")
      const [before] = (await listener()).rows
      assert.ok(before, 'a listener connection')
      await operator.query('SELECT pg_terminate_backend($1)', [before.pid])
      // Notices of this deletion can no longer arrive; a cache still in use would answer it.
      await deleteSilently(kept._id)
      await eventually('loss seen', async () => (await store.findUserById(kept._id)) === undefined)

      await eventually('listening again', async () => (await listener()).rows.some((r) => r.pid !== before.pid))
      // Live again once a fresh account, read once and then deleted silently, is still answered.
      await eventually('answered from memory again', async () => {
        const user = await created()
        await deleteSilently(user._id)
        return (await store.findUserById(user._id)) !== undefined
      })
    })
  })

  describe('account listener: live only while its own check notices come back', () => {
    let db: TestDatabase
    before(async () => {
      db = await createTestDatabase()
    })
    after(async () => db.drop())

    it('never goes live where notices do not arrive, goes live where they do, and is lost once they stop', async () => {
      const target = new URL(db.url)
      const filter = await startNoticeFilter(target.hostname, Number(target.port || 5432))
      const url = new URL(db.url)
      url.hostname = '127.0.0.1'
      url.port = String(filter.port)
      const changes: boolean[] = []
      const listener = new AccountListener({
        url: url.toString(), connectTimeoutMs: 2000, checkTimeoutMs: 300, checkEveryMs: 100, retryMs: 50,
        onNotice: () => {},
        onLive: (live) => changes.push(live),
      })
      try {
        // Queries are answered, notices are not: the connection looks healthy, yet LISTEN is useless.
        filter.dropNotices = true
        await listener.start()
        await new Promise((resolve) => setTimeout(resolve, 800))
        assert.deepEqual(changes, [])
        filter.dropNotices = false
        await eventually('live once notices arrive', async () => changes.at(-1) === true)
        filter.dropNotices = true
        await eventually('lost once they stop', async () => changes.at(-1) === false, 2000)
        assert.deepEqual(changes, [true, false])
      } finally {
        await listener.close()
        await filter.close()
      }
    })
  })
}
