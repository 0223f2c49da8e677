// SQLite's version clock (migration 11, StoreDriver.versionClock): one read of it per turn tells
// the cache layer whether any user's versions can have changed since it read them
// (src/store/cache/versions-reader.ts), and GET /get-all-notes checks its listing against the
// versions its authentication read (Store.listNotesJson's `checked`).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { newId } from '../src/services/ids.js'
import { cachedStore } from '../src/store/cache/index.js'
import { versionsReader } from '../src/store/cache/versions-reader.js'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import type { CheckedVersions, SessionRecord } from '../src/store/types.js'
import type { StoreDriver } from '../src/store/driver.js'
import { makeNote, makeUser } from './support/store-contract.js'
import { erase, terms } from './support/note-writes.js'

const KEEP_ALL = { createdBefore: '2000-01-01T00:00:00.000Z', keepMost: 1000 }
const sessionOf = (userId: string): SessionRecord => {
  const now = new Date().toISOString()
  return { _id: newId(), userId, createdOn: now, lastUsedOn: now, client: 'test' }
}

/** The SQLite driver, counting its version reads. */
function counted(): { driver: StoreDriver; reads: { versions: number; clock: number } } {
  const real = openSqliteStore({ dataDir: ':memory:' })
  const reads = { versions: 0, clock: 0 }
  const driver: StoreDriver = {
    ...real,
    userVersions: (ids) => (reads.versions++, real.userVersions(ids)),
    versionClock: () => (reads.clock++, real.versionClock!()),
  }
  return { driver, reads }
}

describe('sqlite version clock', () => {
  it('moves with every write that changes a version, an account removal included', async () => {
    const driver = openSqliteStore({ dataDir: ':memory:' })
    const clock = () => driver.versionClock!()
    const moved = async (what: string, write: () => Promise<unknown>) => {
      const before = await clock()
      await write()
      assert.notEqual(await clock(), before, what)
    }
    const user = makeUser()
    const note = makeNote(user._id)
    const session = sessionOf(user._id)
    await moved('create account', () => driver.createUser(user))
    await moved('add note', () => driver.insertNote(note))
    await moved('edit note', () =>
      driver.updateNote(user._id, note._id, { title: 'changed' }, new Date().toISOString(), terms()),
    )
    await moved('delete note', () => driver.deleteNote(user._id, note._id, erase()))
    await moved('create session', () => driver.createSession(session, KEEP_ALL))
    await moved('touch session', () =>
      driver.touchSession(session._id, new Date().toISOString(), '2100-01-01T00:00:00.000Z'),
    )
    await moved('end session', () => driver.deleteSession(user._id, session._id))
    await moved('rename', () => driver.updateUser(user._id, { fullName: 'Renamed' }))
    await moved('delete account', () => driver.deleteUser(user._id))
    const still = await clock()
    await driver.listNotesJson(user._id)
    await driver.findUserById(user._id)
    assert.equal(await clock(), still, 'reads leave it')
    await driver.close()
  })

  it('answers every lookup as a fresh read would, reading versions again only after the clock moved', async () => {
    const users = [makeUser(), makeUser(), makeUser()]
    const op = fc.oneof(
      fc.record({ kind: fc.constant('look' as const), user: fc.nat(2) }),
      fc.record({ kind: fc.constant('note' as const), user: fc.nat(2) }),
      fc.record({ kind: fc.constant('rename' as const), user: fc.nat(2) }),
      fc.record({ kind: fc.constant('remove' as const), user: fc.nat(2) }),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
        const { driver, reads } = counted()
        const versionsOf = versionsReader(driver, 100)
        for (const u of users) await driver.createUser(u)
        /** Users looked up since the last write: their versions, read then, are still current. */
        const seen = new Set<number>()
        for (const { kind, user } of ops) {
          const id = users[user]!._id
          if (kind === 'look') {
            const before = reads.versions
            const answered = await versionsOf(id)
            assert.deepEqual(answered, (await driver.userVersions([id])).get(id))
            reads.versions-- // the check's own read
            if (seen.has(user))
              assert.equal(reads.versions, before, 'nothing changed since its last lookup: no version read')
            seen.add(user)
          } else {
            seen.clear()
            if (kind === 'note') await driver.insertNote(makeNote(id))
            else if (kind === 'rename') await driver.updateUser(id, { fullName: `n${reads.clock}` })
            else await driver.deleteUser(id)
          }
        }
        await driver.close()
      }),
      { numRuns: 60 },
    )
  })

  it("checks GET /get-all-notes's listing against the versions its authentication read, for that user only", async () => {
    const { driver, reads } = counted()
    const store = cachedStore(driver, { listingBytes: 1 << 20 })
    const [owner, other] = [makeUser(), makeUser()]
    const session = sessionOf(owner._id)
    await store.createUser(owner, session)
    await store.createUser(other)
    await store.insertNote(makeNote(owner._id, { title: 'mine' }))
    await store.findSession(session._id) // learns whose session it is
    await store.findSession(session._id) // reads it after its account's version: kept
    const found = await store.findSession(session._id)
    assert.ok(found?.checked, 'the lookup read the versions, and answers its proof')
    const listed = await store.listNotesJson(owner._id, found?.checked) // read, and kept
    const before = { ...reads }
    assert.ok((await store.listNotesJson(owner._id, found?.checked)) === listed)
    assert.deepEqual(reads, before, 'no version or clock read of its own')
    await store.listNotesJson(other._id, found?.checked)
    assert.ok(reads.clock + reads.versions > before.clock + before.versions, "another user's listing reads its own")
    // Nothing but this store's own lookup makes a proof it accepts: a look-alike, or another
    // store's proof, is ignored, and the listing reads its own versions.
    const notes = (await driver.userVersions([owner._id])).get(owner._id)!.notes
    const forged = { userId: owner._id, notes } as unknown as CheckedVersions
    const twin = cachedStore(driver, { listingBytes: 1 << 20 })
    await twin.findSession(session._id)
    const foreign = (await twin.findSession(session._id))?.checked
    assert.ok(foreign)
    for (const stranger of [forged, foreign]) {
      const ahead = { ...reads }
      assert.ok((await store.listNotesJson(owner._id, stranger)) === listed)
      assert.ok(
        reads.clock + reads.versions > ahead.clock + ahead.versions,
        'a proof this store did not make reads its own',
      )
    }
    // The kept session answers the same copy while its notes version holds, and a new one after a write.
    assert.ok((await store.findSession(session._id)) === (await store.findSession(session._id)))
    await store.insertNote(makeNote(owner._id, { title: 'later' }))
    const after = await store.findSession(session._id)
    assert.ok(after?.checked && after.checked !== found?.checked, 'a new proof for the new version')
    assert.match((await store.listNotesJson(owner._id, after?.checked)).toString(), /later/)
    await store.close()
  })
})
