// The cache layer (src/store/cache) keeps listings, accounts and sessions in memory, and uses
// one only while the database, asked after the request arrived, answers the version it was read
// at. The versions are kept by triggers, so every write path moves them: this store, another
// process or instance on the same database, an import, an operator's raw SQL. Each test writes
// through one of them between two reads and expects the second read to show it, on either store:
// no answer waits for a notice (docs/caching.md).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { cachedStore } from '../src/store/cache/index.js'
import { type AccountWrite, STORE_METHODS } from '../src/store/methods.js'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { LIST_PAGE_ROWS } from '../src/store/sqlite/notes.js'
import type { NoteRecord, SessionRecord, UserRecord } from '../src/store/types.js'
import type { StoreDriver } from '../src/store/driver.js'
import { type Harness, MODES, register, startHarness } from './support/harness.js'
import { type StoreWithSql, openStoreWithSql } from './support/sql-stores.js'
import { makeNote, makeUser } from './support/store-contract.js'
import { erase, terms } from './support/note-writes.js'
import { SERVICE_LIMITS, type TestStore, sqliteOwnerOfThreePages, storeKinds } from './support/stores.js'

const titles = async (store: TestStore, userId: string) =>
  (JSON.parse((await store.listNotesJson(userId)).toString()) as NoteRecord[]).map((n) => n.title)
const sessionOf = (userId: string): SessionRecord => {
  const now = new Date().toISOString()
  return { _id: makeUser()._id, userId, createdOn: now, lastUsedOn: now, client: 'test' }
}
const KEEP_ALL = { createdBefore: '2000-01-01T00:00:00.000Z', keepMost: 1000 }

/** Asserts that an account or session change made outside this process shows at the next read. */
async function shows(_kind: string, what: string, check: () => Promise<boolean>): Promise<void> {
  assert.ok(await check(), what)
}

for (const kind of storeKinds()) {
  describe(`cache layer over ${kind}: every write path shows at the next read`, () => {
    let db: StoreWithSql
    /** Another process (SQLite: another connection to the file) or instance on the same database. */
    let other: TestStore
    before(async () => {
      db = await openStoreWithSql(kind)
      other = await db.openAnother()
    })
    after(async () => db.close())

    const owner = async () => {
      const user = makeUser()
      assert.equal(await db.store.createUser(user), true)
      return user
    }

    it('answers an unchanged listing from memory: the same bytes, not read again', async () => {
      const user = await owner()
      await db.store.insertNote(makeNote(user._id, { title: 'kept' }))
      const first = await db.store.listNotesJson(user._id)
      assert.ok((await db.store.listNotesJson(user._id)) === first)
    })

    it('shows each change to a listing, through this store, another process, an import and raw SQL', async () => {
      const user = await owner()
      const a = makeNote(user._id, { title: 'a', createdOn: '2026-01-01T00:00:00.000Z' })
      await db.store.insertNote(a)
      assert.deepEqual(await titles(db.store, user._id), ['a'])
      assert.deepEqual(await titles(other, user._id), ['a']) // both keep it now

      const b = makeNote(user._id, { title: 'b', createdOn: '2026-01-02T00:00:00.000Z' })
      await other.insertNote(b)
      assert.deepEqual(await titles(db.store, user._id), ['b', 'a'])
      await db.store.updateNote(user._id, a._id, { isPinned: true }, a.updatedOn, terms())
      assert.deepEqual(await titles(other, user._id), ['a', 'b'])
      await other.deleteNote(user._id, b._id, erase())
      assert.deepEqual(await titles(db.store, user._id), ['a'])
      await other.importNotes([makeNote(user._id, { title: 'imported', createdOn: '2026-01-03T00:00:00.000Z' })])
      assert.deepEqual(await titles(db.store, user._id), ['a', 'imported'])

      await db.sql('UPDATE notes SET title = ? WHERE id = ?', ['a by SQL', a._id])
      assert.deepEqual(await titles(db.store, user._id), ['a by SQL', 'imported'])
      // Moving a note to another account changes both listings.
      const mover = await owner()
      assert.deepEqual(await titles(db.store, mover._id), [])
      await db.sql('UPDATE notes SET user_id = ? WHERE id = ?', [mover._id, a._id])
      assert.deepEqual(await titles(db.store, user._id), ['imported'])
      assert.deepEqual(await titles(db.store, mover._id), ['a by SQL'])
      await db.sql('DELETE FROM notes WHERE user_id = ?', [user._id])
      assert.deepEqual(await titles(db.store, user._id), [])
    })

    it('shows an account renamed or deleted by another process or raw SQL at the next lookup', async () => {
      const user = await owner()
      assert.equal((await db.store.findUserById(user._id))?.fullName, user.fullName)
      assert.equal((await db.store.findUserById(user._id))?.fullName, user.fullName)
      await db.store.updateUser(user._id, { fullName: 'Renamed Here' })
      assert.equal((await db.store.findUserById(user._id))?.fullName, 'Renamed Here')
      await other.updateUser(user._id, { fullName: 'Renamed Elsewhere' })
      await shows(
        kind,
        'rename elsewhere',
        async () => (await db.store.findUserById(user._id))?.fullName === 'Renamed Elsewhere',
      )
      await db.sql('UPDATE users SET full_name = ? WHERE id = ?', ['Renamed by SQL', user._id])
      await shows(
        kind,
        'rename by SQL',
        async () => (await db.store.findUserById(user._id))?.fullName === 'Renamed by SQL',
      )
      await db.sql('DELETE FROM users WHERE id = ?', [user._id])
      await shows(kind, 'deletion by SQL', async () => (await db.store.findUserById(user._id)) === undefined)
      // Imported again with the same id: found again, as imported.
      await other.importUsers([{ ...user, fullName: 'Back' }])
      assert.equal((await db.store.findUserById(user._id))?.fullName, 'Back')
    })

    it('ends a session ended by another process, or by raw SQL, at the next lookup', async () => {
      const user = await owner()
      const [one, two] = [sessionOf(user._id), sessionOf(user._id)]
      assert.equal(await db.store.createSession(one, KEEP_ALL), true)
      assert.equal(await db.store.createSession(two, KEEP_ALL), true)
      for (let i = 0; i < 3; i++) assert.equal((await db.store.findSession(one._id))?.session._id, one._id)
      for (let i = 0; i < 3; i++) assert.equal((await db.store.findSession(two._id))?.user.fullName, user.fullName)

      await other.deleteSession(user._id, one._id)
      await shows(kind, 'ended elsewhere', async () => (await db.store.findSession(one._id)) === undefined)
      assert.equal((await db.store.findSession(two._id))?.session._id, two._id)

      const later = new Date(Date.now() + 60_000).toISOString()
      await other.touchSession(two._id, later, later)
      await shows(
        kind,
        'touched elsewhere',
        async () => (await db.store.findSession(two._id))?.session.lastUsedOn === later,
      )
      await db.sql('UPDATE users SET full_name = ? WHERE id = ?', ['Renamed by SQL', user._id])
      await shows(
        kind,
        'account renamed by SQL',
        async () => (await db.store.findSession(two._id))?.user.fullName === 'Renamed by SQL',
      )
      await db.sql('DELETE FROM sessions WHERE id = ?', [two._id])
      await shows(kind, 'ended by SQL', async () => (await db.store.findSession(two._id)) === undefined)

      // Ended through this store: at once, on either store.
      const three = sessionOf(user._id)
      await db.store.createSession(three, KEEP_ALL)
      for (let i = 0; i < 3; i++) assert.ok(await db.store.findSession(three._id))
      await db.store.deleteSession(user._id, three._id)
      assert.equal(await db.store.findSession(three._id), undefined)
    })

    it('ends every session of an account deleted by raw SQL, and of one whose sessions were all ended elsewhere', async () => {
      const user = await owner()
      const s = sessionOf(user._id)
      await db.store.createSession(s, KEEP_ALL)
      assert.ok(await db.store.findSession(s._id))
      assert.ok(await db.store.findSession(s._id))
      await other.updateUser(user._id, {}, { notBefore: new Date().toISOString(), endSessions: true })
      await shows(kind, 'all ended elsewhere', async () => (await db.store.findSession(s._id)) === undefined)

      const gone = await owner()
      const t = sessionOf(gone._id)
      await db.store.createSession(t, KEEP_ALL)
      assert.ok(await db.store.findSession(t._id))
      assert.ok(await db.store.findSession(t._id))
      await db.sql('DELETE FROM sessions WHERE user_id = ?', [gone._id])
      await db.sql('DELETE FROM users WHERE id = ?', [gone._id])
      await shows(
        kind,
        'account deleted by SQL',
        async () =>
          (await db.store.findSession(t._id)) === undefined && (await db.store.findUserById(gone._id)) === undefined,
      )
    })
  })

  for (const mode of MODES) {
    describe(`cache layer over ${kind} (${mode}): a session revoked outside this process gets 401 at the next request`, () => {
      let db: StoreWithSql
      let h: Harness
      before(async () => {
        db = await openStoreWithSql(kind, SERVICE_LIMITS)
        h = await startHarness(mode, { store: db.store })
      })
      after(async () => {
        await h.close()
        await db.close()
      })

      it('by raw SQL, and by another instance', async () => {
        for (const revoke of [
          (userId: string) => db.sql('DELETE FROM sessions WHERE user_id = ?', [userId]),
          async (userId: string) =>
            void (await (
              await db.openAnother()
            ).updateUser(userId, {}, { notBefore: new Date().toISOString(), endSessions: true })),
        ]) {
          const a = await register(h.client)
          for (let i = 0; i < 3; i++) {
            assert.equal((await h.client.request('GET', '/get-user', { token: a.token })).status, 200)
            assert.equal((await h.client.request('GET', '/get-all-notes', { token: a.token })).status, 200)
          }
          await revoke(a.userId)
          for (const path of ['/get-user', '/get-all-notes']) {
            await shows(
              kind,
              `${path} refused`,
              async () => (await h.client.request('GET', path, { token: a.token })).status === 401,
            )
          }
        }
      })
    })
  }
}

/** An SQLite driver whose version reads are counted. */
function countingVersions(driver: StoreDriver): { driver: StoreDriver; reads: () => number } {
  let reads = 0
  return {
    driver: { ...driver, userVersions: (ids) => (reads++, driver.userVersions(ids)) },
    reads: () => reads,
  }
}

describe('cache layer: when it reads versions, and what it keeps', () => {
  it('reads the versions of all the lookups of one turn of the event loop at once, after they were asked', async () => {
    const { driver, reads } = countingVersions(openSqliteStore({ dataDir: ':memory:' }))
    const store = cachedStore(driver, { listingBytes: 2 ** 20 })
    const users = [makeUser(), makeUser(), makeUser()]
    for (const u of users) await store.createUser(u)
    const before = reads()
    const found = await Promise.all([
      ...users.map((u) => store.findUserById(u._id)),
      ...users.map((u) => store.listNotesJson(u._id)),
    ])
    assert.equal(found.length, 6)
    assert.equal(reads() - before, 1)
    await store.close()
  })

  it('does not serve a long listing that a write overlapped', async () => {
    const { store, owner, at } = await sqliteOwnerOfThreePages()
    // The listing yields between its three pages; the write commits while it is being read, so
    // this one answer may miss the new note, and the next one must show it.
    const reading = store.listNotesJson(owner._id)
    await store.insertNote(makeNote(owner._id, { title: 'during', createdOn: at(100_000) }))
    await reading
    const listed = await titles(store, owner._id)
    assert.equal(listed.length, 2 * LIST_PAGE_ROWS + 6)
    assert.equal(listed[0], 'during')
    await store.close()
  })

  it('keeps no listing larger than an eighth of its bound, and none at all with a bound of 0', async () => {
    for (const listingBytes of [8 * 200, 0]) {
      const driver = openSqliteStore({ dataDir: ':memory:' })
      let reads = 0
      const store = cachedStore(
        { ...driver, listNotesJson: (id) => (reads++, driver.listNotesJson(id)) },
        { listingBytes },
      )
      const user = makeUser()
      await store.createUser(user)
      await store.insertNote(makeNote(user._id, { content: 'x'.repeat(300) }))
      await store.listNotesJson(user._id)
      await store.listNotesJson(user._id)
      assert.equal(reads, 2, `bound ${listingBytes}`)
      await store.close()
    }
  })
})

/** The arguments of each account write, for an account with one session: typed so that a new account write needs an entry. */
const ACCOUNT_WRITES: { [K in AccountWrite]: (user: UserRecord, session: SessionRecord) => Parameters<TestStore[K]> } =
  {
    // A new account's id is never kept; here the write repeats an existing one, and fails.
    createUser: (user) => [user],
    updateUser: (user) => [user._id, { fullName: 'renamed' }],
    deleteUser: (user) => [user._id],
    createSession: (user) => [sessionOf(user._id), KEEP_ALL],
    touchSession: (_, session) => [session._id, '2100-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z'],
    deleteSession: (user, session) => [user._id, session._id],
  }

describe('cache layer: every account write goes through the one invalidation path', () => {
  it('classifies every account write in ACCOUNT_WRITES, and nothing else', () => {
    const writes = Object.entries(STORE_METHODS).flatMap(([name, { forgets }]) =>
      typeof forgets === 'object' ? [name] : [],
    )
    assert.deepEqual(writes.sort(), Object.keys(ACCOUNT_WRITES).sort())
  })

  for (const name of Object.keys(ACCOUNT_WRITES) as AccountWrite[]) {
    it(`${name}: every later lookup reads the account's version (or its data) after it asked, and answers the account as stored`, async () => {
      // No version clock: every read is counted.
      const sqlite = openSqliteStore({ dataDir: ':memory:' })
      let reads = 0
      const driver: StoreDriver = {
        ...sqlite,
        versionClock: undefined,
        userVersions: (ids) => (reads++, sqlite.userVersions(ids)),
        findSession: (id) => (reads++, sqlite.findSession(id)),
        findUserById: (id) => (reads++, sqlite.findUserById(id)),
      }
      const store = cachedStore(driver, { listingBytes: 1 << 20 })
      const user = makeUser()
      const session = sessionOf(user._id)
      assert.equal(await sqlite.createUser(user, session), true)
      assert.ok(await store.findSession(session._id)) // learns whose session it is
      assert.ok(await store.findUserById(user._id))
      const write = (store[name] as (...args: unknown[]) => Promise<unknown>).bind(store)
      await write(...ACCOUNT_WRITES[name](user, session)).catch(() => undefined)
      for (let i = 0; i < 2; i++) {
        const before = reads
        assert.deepEqual(await store.findUserById(user._id), await sqlite.findUserById(user._id))
        assert.deepEqual(
          (await store.findSession(session._id))?.session,
          (await sqlite.findSession(session._id))?.session,
        )
        assert.ok(reads >= before + 2, `${name}: each lookup read the version, or the database`)
      }
      await store.close()
    })
  }
})
