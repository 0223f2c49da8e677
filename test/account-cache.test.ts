// The SQLite store keeps accounts by id in memory (src/store/sqlite/account-cache.ts), because
// every authenticated request reads its account. A cached account must never outlive its row:
// once a user is deleted by any connection, the next lookup says so (and the token gets 401).
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { AccountCache } from '../src/store/sqlite/account-cache.js'
import { sharedCheck } from '../src/store/shared-check.js'
import { SQLITE_FILE, openSqliteStore } from '../src/store/sqlite/index.js'
import type { UserRecord } from '../src/store/types.js'
import { makeUser } from './support/store-contract.js'
import { tempDir } from './support/temp.js'

describe('account cache (sqlite)', () => {
  const dir = tempDir()
  after(() => dir.remove())

  it('answers a repeated lookup from memory, and never keeps an unknown id', () => {
    const cache = new AccountCache()
    const user = makeUser()
    let reads = 0
    const read = (found: UserRecord | undefined) => () => {
      reads++
      return found
    }
    assert.equal(cache.get(user._id, read(undefined)), undefined)
    assert.equal(cache.get(user._id, read(undefined)), undefined)
    assert.equal(reads, 2, 'an unknown id is read again: it may be registered meanwhile')
    assert.deepEqual(cache.get(user._id, read(user)), user)
    assert.deepEqual(cache.get(user._id, read(undefined)), user)
    assert.equal(reads, 3, 'the second lookup of a known account is answered from memory')
    assert.equal(cache.size, 1)
  })

  it('forgets an account deleted by another connection before the next lookup', async () => {
    const store = openSqliteStore({ dataDir: dir.path })
    const user = makeUser()
    await store.createUser(user)
    assert.equal((await store.findUserById(user._id))?._id, user._id)
    assert.equal((await store.findUserById(user._id))?._id, user._id) // now from the cache

    // No endpoint deletes an account; an operator may, with another connection (sqlite3 shell).
    const operator = new Database(`${dir.path}/${SQLITE_FILE}`)
    operator.prepare('DELETE FROM users WHERE id = ?').run(user._id)
    operator.close()
    assert.equal(await store.findUserById(user._id), undefined)
    await store.close()
  })

  it('finds an account registered after a lookup missed it, through this or another connection', async () => {
    const mine = openSqliteStore({ dataDir: dir.path })
    const theirs = openSqliteStore({ dataDir: dir.path })
    const here = makeUser()
    const there = makeUser()
    assert.equal(await mine.findUserById(here._id), undefined)
    assert.equal(await mine.findUserById(there._id), undefined)
    await mine.createUser(here)
    await theirs.createUser(there)
    assert.equal((await mine.findUserById(here._id))?._id, here._id)
    assert.equal((await mine.findUserById(there._id))?._id, there._id)
    await mine.close()
    await theirs.close()
  })

  it('shares one data_version check among the lookups asked before it, and runs it after them', async () => {
    let checks = 0
    const fresh = sharedCheck(() => void checks++)
    const asked = [fresh(), fresh(), fresh()]
    assert.equal(checks, 0, 'no check before the callers have all asked')
    await Promise.all(asked)
    assert.equal(checks, 1, 'one check for the three lookups of one turn')
    await fresh()
    assert.equal(checks, 2, 'a lookup asked after a check waits for a check of its own')

    const failing = sharedCheck(() => {
      throw new Error('disk I/O error')
    })
    await assert.rejects(Promise.all([failing(), failing()]), /disk I\/O error/)
  })

  it('sees a commit made by another connection after a lookup was asked and before it was answered', async () => {
    const store = openSqliteStore({ dataDir: dir.path })
    const user = makeUser()
    await store.createUser(user)
    assert.equal((await store.findUserById(user._id))?._id, user._id) // cached now
    // The lookup is asked first (as a request is read), then the operator commits in the same
    // turn of the event loop: the shared check runs after both, so the deletion is seen.
    const lookup = store.findUserById(user._id)
    const operator = new Database(`${dir.path}/${SQLITE_FILE}`)
    operator.prepare('DELETE FROM users WHERE id = ?').run(user._id)
    operator.close()
    assert.equal(await lookup, undefined)
    await store.close()
  })
})
