// On PostgreSQL the cache layer uses a kept account or session without asking for its version
// while the notices of migration 10's trigger are proven to arrive (src/store/cache/account-
// versions.ts, src/store/postgres/account-notices.ts): a change is seen when its notice arrives,
// this process's own changes at once, and while notices are lost every lookup reads its version.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { cachedStore } from '../src/store/cache/index.js'
import { AccountListener } from '../src/store/postgres/account-notices.js'
import { openPostgresStore } from '../src/store/postgres/index.js'
import { type SessionRecord, type Store, type StoreDriver, StoreUnavailableError } from '../src/store/types.js'
import { eventually } from './support/eventually.js'
import { startNoticeFilter } from './support/notice-filter.js'
import { type TestDatabase, createTestDatabase, operatorPool, serviceAvailable } from './support/services.js'
import { makeUser } from './support/store-contract.js'

const sessionOf = (userId: string): SessionRecord => {
  const now = new Date().toISOString()
  return { _id: makeUser()._id, userId, createdOn: now, lastUsedOn: now, client: 'test' }
}

if (serviceAvailable('postgresql')) {
  describe('postgresql: kept accounts and sessions on the strength of notices', () => {
    let db: TestDatabase
    let operator: pg.Pool
    let driver: StoreDriver
    let store: Store
    let versionReads = 0
    const notices: boolean[] = []
    before(async () => {
      db = await createTestDatabase()
      operator = operatorPool(db.url)
      driver = await openPostgresStore({ url: db.url, poolSize: 2, listenerRetryMs: 50, listenerCheckEveryMs: 100 })
      const counted: StoreDriver = { ...driver, userVersions: (ids) => (versionReads++, driver.userVersions(ids)) }
      store = cachedStore(counted, { listingBytes: 2 ** 20, onNotices: (live) => notices.push(live) })
      await eventually('notices live', async () => notices.at(-1) === true)
    })
    after(async () => {
      await store.close()
      await operator.end()
      await db.drop()
    })

    /** A new account with a session, both looked up until kept. */
    const kept = async () => {
      const user = makeUser()
      const session = sessionOf(user._id)
      await store.createUser(user, session)
      for (let i = 0; i < 2; i++) assert.equal((await store.findSession(session._id))?.user._id, user._id)
      return { user, session }
    }

    it('answers a kept session and account with no version read while notices are live', async () => {
      const { user, session } = await kept()
      await store.findUserById(user._id)
      const before = versionReads
      for (let i = 0; i < 5; i++) {
        assert.equal((await store.findSession(session._id))?.session._id, session._id)
        assert.equal((await store.findUserById(user._id))?._id, user._id)
      }
      assert.equal(versionReads, before)
    })

    it("sees an operator's change when its notice arrives, and all of them on TRUNCATE", async () => {
      const a = await kept()
      await operator.query('DELETE FROM sessions WHERE id = $1', [a.session._id])
      await eventually('session end seen', async () => (await store.findSession(a.session._id)) === undefined, 1000)
      const b = await kept()
      await operator.query("UPDATE users SET full_name = 'Renamed' WHERE id = $1", [b.user._id])
      await eventually('rename seen', async () => (await store.findSession(b.session._id))?.user.fullName === 'Renamed', 1000)
      const [c, d] = [await kept(), await kept()]
      await operator.query('TRUNCATE sessions')
      await eventually('truncate seen', async () => (await store.findSession(c.session._id)) === undefined && (await store.findSession(d.session._id)) === undefined, 1000)
    })

    it("sees this process's own changes at once", async () => {
      const { user, session } = await kept()
      await store.updateUser(user._id, { fullName: 'Mine' })
      assert.equal((await store.findSession(session._id))?.user.fullName, 'Mine')
      await store.deleteSession(user._id, session._id)
      assert.equal(await store.findSession(session._id), undefined)
    })

    it('reads every version while notices are lost, and keeps them again once notices are back', async () => {
      const { session } = await kept()
      const listener = () =>
        operator.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'notes-service account listener'")
      const [first] = (await listener()).rows
      assert.ok(first, 'a listener connection')
      await operator.query('SELECT pg_terminate_backend($1)', [first.pid])
      await eventually('loss seen', async () => notices.at(-1) === false)
      const lost = versionReads
      await store.findSession(session._id)
      await store.findSession(session._id)
      assert.equal(versionReads, lost + 2)
      await eventually('live again', async () => notices.at(-1) === true)
      await store.findSession(session._id)
      const back = versionReads
      await store.findSession(session._id)
      assert.equal(versionReads, back)
    })

    it('answers nothing from memory once closed: the lookup goes to the ended pool and fails as unavailable', async () => {
      const closing = cachedStore(await openPostgresStore({ url: db.url, poolSize: 1 }), { listingBytes: 0 })
      const user = makeUser()
      await closing.createUser(user)
      await closing.findUserById(user._id)
      await closing.findUserById(user._id)
      await closing.close()
      await assert.rejects(closing.findUserById(user._id), StoreUnavailableError)
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
