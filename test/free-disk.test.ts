// MIN_FREE_DISK_MB: on the SQLite store, writes that add data answer 507 while the data
// directory's file system has less free space; deletes and reads still work. The free space
// is injected (no disk is filled), except in one test that reads a real statfs with a minimum
// above what the temporary directory's file system has. PostgreSQL's disk is the database
// server's: the setting changes nothing there.
import assert from 'node:assert/strict'
import { statfs } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import { parseConfig } from '../src/config.js'
import { LOW_DISK_SPACE } from '../src/errors.js'
import { FreeSpaceGuard, READING_MAX_AGE_MS } from '../src/store/sqlite/free-space.js'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { openStore } from '../src/store/open.js'
import { LowDiskSpaceError, type Store } from '../src/store/types.js'
import { type Harness, MODES, TEST_SECRET, addNote, register, startHarness, targets } from './support/harness.js'
import { type TestDatabase, createTestDatabase, serviceAvailable } from './support/services.js'
import { makeNote, makeUser } from './support/store-contract.js'
import { tempDir } from './support/temp.js'
import { listedNotes } from './support/listed.js'
import { terms, trash } from './support/note-writes.js'

const MB = 2 ** 20
const isLowDisk = (err: unknown) => err instanceof LowDiskSpaceError

describe('FreeSpaceGuard', () => {
  it('reads the free space at most once a second and refuses below the minimum', async () => {
    let clock = 0
    let free = 200 * MB
    let reads = 0
    const guard = new FreeSpaceGuard(
      100 * MB,
      async () => (reads++, free),
      () => clock,
    )
    await Promise.all([guard.check(), guard.check(), guard.check()])
    assert.equal(reads, 1, 'checks at once share one reading')
    free = 50 * MB
    clock = READING_MAX_AGE_MS - 1
    await guard.check() // the reading of 200 MB is still used
    assert.equal(reads, 1)
    clock = READING_MAX_AGE_MS
    await assert.rejects(guard.check(), isLowDisk)
    assert.equal(reads, 2)
    await assert.rejects(guard.check(), isLowDisk)
    free = 100 * MB
    clock = 2 * READING_MAX_AGE_MS
    await guard.check()
    assert.equal(reads, 3)
  })

  it('lets writes through when the file system cannot say', async () => {
    const guard = new FreeSpaceGuard(100 * MB, async () => {
      throw new Error('ENOENT')
    })
    await guard.check()
  })
})

describe('the SQLite store below its free-space minimum', () => {
  it('refuses new accounts, notes, edits and pins, and still reads and deletes', async () => {
    let free = 500 * MB
    const store = openSqliteStore({ dataDir: ':memory:', minFreeDiskBytes: 100 * MB, freeSpace: async () => free })
    try {
      const user = makeUser()
      assert.equal(await store.createUser(user), true)
      const note = makeNote(user._id)
      assert.equal(await store.insertNote(note), true)
      free = 99 * MB
      // The store's guard reads again after a second: wait for it rather than fake its clock.
      await new Promise((resolve) => setTimeout(resolve, READING_MAX_AGE_MS + 50))
      await assert.rejects(store.createUser(makeUser()), isLowDisk)
      await assert.rejects(store.insertNote(makeNote(user._id)), isLowDisk)
      await assert.rejects(
        store.updateNote(user._id, note._id, { title: 'x' }, new Date().toISOString(), terms()),
        isLowDisk,
      )
      await assert.rejects(
        store.updateNote(user._id, note._id, { isPinned: true }, new Date().toISOString(), terms()),
        isLowDisk,
      )
      assert.deepEqual(await store.findNote(user._id, note._id), note)
      assert.equal((await listedNotes(store, user._id)).length, 1)
      // To the trash, as TRASH_DAYS' default does: a person must always be able to delete.
      assert.deepEqual(await store.deleteNote(user._id, note._id, trash()), { note })
    } finally {
      await store.close()
    }
  })
})

describe('free space over HTTP, SQLite', () => {
  for (const mode of MODES) {
    describe(mode, () => {
      let h: Harness
      let free = 1000 * MB
      before(async () => {
        const store = openSqliteStore({ dataDir: ':memory:', minFreeDiskBytes: 100 * MB, freeSpace: async () => free })
        h = await startHarness(mode, { store })
      })
      after(async () => h.close())

      it('answers 507 to create-account, add-note, edit-note and update-note-pinned; reads, login and deletes work', async () => {
        const a = await register(h.client)
        const note = await addNote(h.client, a.token, { title: 't', content: 'c' })
        free = 10 * MB
        await new Promise((resolve) => setTimeout(resolve, READING_MAX_AGE_MS + 50))
        const full = { error: true, message: LOW_DISK_SPACE }
        const writes = [
          h.client.request('POST', '/create-account', {
            body: { fullName: 'N', email: `new.${a.email}`, password: 'pw' },
          }),
          h.client.request('POST', '/add-note', { token: a.token, body: { title: 't', content: 'c' } }),
          h.client.request('PUT', `/edit-note/${note._id}`, { token: a.token, body: { title: 'edited' } }),
          h.client.request('PUT', `/update-note-pinned/${note._id}`, { token: a.token, body: { isPinned: true } }),
        ]
        for (const reply of await Promise.all(writes)) assert.deepEqual([reply.status, reply.json], [507, full])
        assert.match(LOW_DISK_SPACE, /^Not enough free disk space/)
        assert.equal((await h.client.request('GET', '/get-all-notes', { token: a.token })).status, 200)
        assert.equal((await h.client.request('GET', '/search-notes?query=t', { token: a.token })).status, 200)
        assert.equal(
          (await h.client.request('POST', '/login', { body: { email: a.email, password: a.password } })).status,
          200,
        )
        assert.equal((await h.client.request('DELETE', `/delete-note/${note._id}`, { token: a.token })).status, 200)
        free = 1000 * MB
        await new Promise((resolve) => setTimeout(resolve, READING_MAX_AGE_MS + 50))
        await addNote(h.client, a.token, { title: 'room again', content: 'c' })
      })
    })
  }

  it('reads the real free space of DATA_DIR (statfs): a minimum above it refuses, a small one does not', async () => {
    const dir = tempDir('notes-free-disk-')
    try {
      const stats = await statfs(dir.path)
      const freeMb = Math.floor((stats.bavail * stats.bsize) / MB)
      const env = { DATA_DIR: dir.path, ACCESS_TOKEN_SECRET: TEST_SECRET }
      for (const [minMb, expected] of [
        [freeMb + 1024, 507],
        [1, 200],
      ] as const) {
        const config = parseConfig({ ...env, MIN_FREE_DISK_MB: String(minMb) })
        const h = await startHarness('http', { store: await openStore(config), config })
        try {
          const reply = await h.client.request('POST', '/create-account', {
            body: { fullName: 'N', email: `${minMb}@example.com`, password: 'pw' },
          })
          assert.equal(reply.status, expected, `MIN_FREE_DISK_MB=${minMb} with ${freeMb} MB free: ${reply.text}`)
        } finally {
          await h.close()
        }
      }
    } finally {
      dir.remove()
    }
  })
})

if (serviceAvailable('postgresql')) {
  describe('free space, PostgreSQL', () => {
    let store: Store
    let db: TestDatabase
    before(async () => {
      db = await createTestDatabase()
      store = await openStore(
        parseConfig({ DATABASE_URL: db.url, ACCESS_TOKEN_SECRET: TEST_SECRET, MIN_FREE_DISK_MB: '1048576' }),
      )
    })
    after(async () => {
      await store.close()
      await db.drop()
    })

    for (const { mode } of targets().filter((t) => t.storeKind === 'postgresql')) {
      it(`does not apply MIN_FREE_DISK_MB: the database server's disk is not this machine's (${mode})`, async () => {
        const h = await startHarness(mode, { store, config: { minFreeDiskMb: 1_048_576 } })
        try {
          const a = await register(h.client)
          const note = await addNote(h.client, a.token, { title: 't', content: 'c' })
          assert.equal(
            (
              await h.client.request('PUT', `/update-note-pinned/${note._id}`, {
                token: a.token,
                body: { isPinned: true },
              })
            ).status,
            200,
          )
        } finally {
          await h.app.close()
        }
      })
    }
  })
}
