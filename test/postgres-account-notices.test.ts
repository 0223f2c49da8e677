// On PostgreSQL the cache layer keeps accounts and sessions, and uses one only while the account's
// version, read after the lookup asked, is the one it was kept with (docs/caching.md): nothing it
// answers waits for a notice. Here the instance that looks up gets its notices through a proxy
// that first lets them pass (any listener of its goes live), then holds every one back, as a
// listener behind on a busy machine would be; another instance ends sessions and accounts: the
// very next lookup sees it.
// The notice listener the change bus uses is proven live only while its own notices come back.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { cachedStore } from '../src/store/cache/index.js'
import { NoticeListener } from '../src/store/postgres/notice-listener.js'
import { openPostgresStore } from '../src/store/postgres/index.js'
import type { SessionRecord, Store } from '../src/store/types.js'
import type { StoreDriver } from '../src/store/driver.js'
import { eventually } from './support/eventually.js'
import { type NoticeFilter, startNoticeFilter } from './support/notice-filter.js'
import { type TestDatabase, createTestDatabase, serviceAvailable } from './support/services.js'
import { makeUser } from './support/store-contract.js'

const sessionOf = (userId: string): SessionRecord => {
  const now = new Date().toISOString()
  return { _id: makeUser()._id, userId, createdOn: now, lastUsedOn: now, client: 'test' }
}

const throughFilter = (dbUrl: string, filter: NoticeFilter) => {
  const url = new URL(dbUrl)
  url.hostname = '127.0.0.1'
  url.port = String(filter.port)
  return url.toString()
}

if (serviceAvailable('postgresql')) {
  describe('postgresql: a kept account or session is used only at the version read after the lookup asked', () => {
    let db: TestDatabase
    let filter: NoticeFilter
    let driver: StoreDriver
    /** This instance: no notice reaches it. */
    let store: Store
    /** Another instance on the same database. */
    let other: Store
    before(async () => {
      db = await createTestDatabase()
      const target = new URL(db.url)
      filter = await startNoticeFilter(target.hostname, Number(target.port || 5432))
      driver = await openPostgresStore({ url: throughFilter(db.url, filter), poolSize: 2 })
      store = cachedStore(driver, { listingBytes: 2 ** 20 })
      other = cachedStore(await openPostgresStore({ url: db.url, poolSize: 2 }), { listingBytes: 2 ** 20 })
      // Whatever listens on this instance's connections has proven its notices arrive; from now on none does.
      await eventually('a notice passed', async () => filter.forwarded > 0, 1500).catch(() => {})
      filter.dropNotices = true
    })
    after(async () => {
      await store.close()
      await other.close()
      await filter.close()
      await db.drop()
    })

    /** A new account with a session, looked up on this instance until kept. */
    const kept = async () => {
      const user = makeUser()
      const session = sessionOf(user._id)
      assert.equal(await other.createUser(user, session), true)
      for (let i = 0; i < 3; i++) assert.equal((await store.findSession(session._id))?.user._id, user._id)
      for (let i = 0; i < 3; i++) assert.equal((await store.findUserById(user._id))?._id, user._id)
      return { user, session }
    }

    it('refuses at the next lookup a session the other instance ended, one by one, all at once, or with the account', async () => {
      const a = await kept()
      assert.equal(await other.deleteSession(a.user._id, a.session._id), true)
      assert.equal(await store.findSession(a.session._id), undefined)

      const b = await kept()
      assert.ok(await other.updateUser(b.user._id, {}, { notBefore: new Date().toISOString(), endSessions: true }))
      assert.equal(await store.findSession(b.session._id), undefined)
      assert.ok((await store.findUserById(b.user._id))?.tokensNotBefore, 'the account as it is now, not as kept')

      const c = await kept()
      assert.equal(await other.deleteUser(c.user._id), true)
      assert.equal(await store.findSession(c.session._id), undefined)
      assert.equal(await store.findUserById(c.user._id), undefined)
    })

    it('refuses it also among many lookups of the same turn, sent right after the end answered', async () => {
      const d = await kept()
      const ending = other.deleteSession(d.user._id, d.session._id)
      const during = Array.from({ length: 50 }, () => store.findSession(d.session._id))
      assert.equal(await ending, true)
      const afterwards = await Promise.all(Array.from({ length: 50 }, () => store.findSession(d.session._id)))
      await Promise.all(during)
      assert.deepEqual(
        afterwards.filter((found) => found !== undefined),
        [],
      )
    })
  })

  describe('notice listener: live only while its own check notices come back', () => {
    let db: TestDatabase
    before(async () => {
      db = await createTestDatabase()
    })
    after(async () => db.drop())

    it('never goes live where notices do not arrive, goes live where they do, and is lost once they stop', async () => {
      const target = new URL(db.url)
      const filter = await startNoticeFilter(target.hostname, Number(target.port || 5432))
      const changes: boolean[] = []
      const listener = new NoticeListener({
        url: throughFilter(db.url, filter),
        connectTimeoutMs: 2000,
        checkTimeoutMs: 300,
        checkEveryMs: 100,
        retryMs: 50,
        applicationName: 'notes-service test listener',
        channels: ['notes_service_test'],
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
