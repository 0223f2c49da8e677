// The version watch (src/services/version-watch.ts) tells the streams of an account whose versions
// moved, whatever moved them, and reads nothing while no stream is open; on SQLite, nothing but the
// version clock while nothing changed.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ChangeKind } from '../src/services/change-bus/bus.js'
import { watchVersions } from '../src/services/version-watch.js'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { eventually } from './support/eventually.js'
import { makeNote, makeUser } from './support/store-contract.js'

describe('version watch', () => {
  it('tells each watched account once at first, then only what moved; reads only the clock while nothing did', async () => {
    const driver = openSqliteStore({ dataDir: ':memory:' })
    const [a, b] = [makeUser(), makeUser()]
    const now = new Date().toISOString()
    const session = { _id: makeUser()._id, userId: a._id, createdOn: now, lastUsedOn: now, client: '' }
    await driver.createUser(a, session)
    await driver.createUser(b)
    let watched: string[] = []
    const told: Array<[ChangeKind, string]> = []
    let versionReads = 0
    let clockReads = 0
    const stop = watchVersions(
      {
        userVersions: (ids) => (versionReads++, driver.userVersions(ids)),
        versionClock: () => (clockReads++, driver.versionClock!()),
      },
      { accounts: () => watched, changed: (kind, userId) => void told.push([kind, userId]) },
      undefined,
      10,
    )
    try {
      await new Promise((resolve) => setTimeout(resolve, 50))
      assert.equal(versionReads + clockReads, 0, 'no stream, no read')

      watched = [a._id, b._id]
      await eventually('first sighting told', async () => told.length === 4)
      assert.deepEqual(
        told.sort(),
        [
          ['notes', a._id],
          ['notes', b._id],
          ['sessions', a._id],
          ['sessions', b._id],
        ].sort(),
      )
      const reads = versionReads
      const clocks = clockReads
      await eventually('the clock read again', async () => clockReads > clocks + 2)
      assert.equal(versionReads, reads, 'nothing changed: the clock alone')
      assert.equal(told.length, 4)

      told.length = 0
      await driver.insertNote(makeNote(b._id))
      await eventually('a note told', async () => told.length > 0)
      assert.deepEqual(told, [['notes', b._id]])

      told.length = 0
      await driver.deleteSession(a._id, session._id)
      await eventually('a session end told', async () => told.length > 0)
      assert.deepEqual(told, [['sessions', a._id]])

      told.length = 0
      await driver.deleteUser(b._id)
      await eventually('a deletion told', async () => told.length >= 2)
      assert.deepEqual(told.sort(), [
        ['notes', b._id],
        ['sessions', b._id],
      ])
    } finally {
      stop()
      await driver.close()
    }
  })
})
