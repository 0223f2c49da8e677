// The group-commit writer of the SQLite driver: batching, order, error isolation, and that no
// write is acknowledged before the COMMIT holding it has returned.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { GroupCommitWriter, MAX_BATCH, type TransactionControl } from '../src/store/sqlite/group-commit.js'
import { openSqliteDatabase, openSqliteStore, sqliteGroupCommit, SQLITE_FILE } from '../src/store/sqlite/index.js'
import { makeNote, makeUser } from './support/store-contract.js'

/** A fake transaction that logs every call; `failCommit` makes the next commit throw. */
function fakeTransactions() {
  const log: string[] = []
  let open = false
  const control = {
    failCommit: false,
    log,
    tx: {
      begin: () => {
        log.push('begin')
        open = true
      },
      commit: () => {
        if (control.failCommit) {
          control.failCommit = false
          throw new Error('disk I/O error')
        }
        log.push('commit')
        open = false
      },
      rollback: () => {
        log.push('rollback')
        open = false
      },
      inTransaction: () => open,
    } satisfies TransactionControl,
  }
  return control
}

/** A scheduler the test triggers by hand, instead of setImmediate. */
function manualScheduler() {
  const pending: (() => void)[] = []
  return {
    schedule: (flush: () => void) => void pending.push(flush),
    runAll: () => pending.splice(0).forEach((flush) => flush()),
    get count() {
      return pending.length
    },
  }
}

const settle = (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (err: unknown) => `rejected: ${(err as Error).message}`,
  )

describe('GroupCommitWriter', () => {
  it('runs the writes queued in one turn in one transaction, in order', async () => {
    const fake = fakeTransactions()
    const scheduler = manualScheduler()
    const writer = new GroupCommitWriter(fake.tx, scheduler.schedule)
    const results = [1, 2, 3].map((n) => writer.write(() => (fake.log.push(`write ${n}`), n * 10)))
    assert.equal(scheduler.count, 1, 'one flush is scheduled for the whole batch')
    scheduler.runAll()
    assert.deepEqual(await Promise.all(results), [10, 20, 30])
    assert.deepEqual(fake.log, ['begin', 'write 1', 'write 2', 'write 3', 'commit'])
    assert.equal(writer.batches, 1)
  })

  it('acknowledges nothing before the commit has returned', async () => {
    const fake = fakeTransactions()
    const scheduler = manualScheduler()
    const writer = new GroupCommitWriter(fake.tx, scheduler.schedule)
    let acknowledged = 0
    const writes = [writer.write(() => 1), writer.write(() => 2)].map((p) => p.then(() => acknowledged++))
    await new Promise((resolve) => setImmediate(resolve)) // give any early settlement a chance
    assert.equal(acknowledged, 0, 'nothing settles before the flush')
    const commit = fake.tx.commit
    let acknowledgedAtCommit = -1
    fake.tx.commit = () => {
      acknowledgedAtCommit = acknowledged
      commit()
    }
    scheduler.runAll()
    await Promise.all(writes)
    assert.equal(acknowledgedAtCommit, 0)
    assert.equal(acknowledged, 2)
  })

  it('rejects exactly the writes of a batch whose commit fails, and commits the next batch', async () => {
    const fake = fakeTransactions()
    const scheduler = manualScheduler()
    const writer = new GroupCommitWriter(fake.tx, scheduler.schedule)
    const first = [writer.write(() => 'a'), writer.write(() => 'b')].map(settle)
    fake.failCommit = true
    scheduler.runAll()
    const second = [writer.write(() => 'c')].map(settle)
    scheduler.runAll()
    assert.deepEqual(await Promise.all(first), ['rejected: disk I/O error', 'rejected: disk I/O error'])
    assert.deepEqual(await Promise.all(second), ['resolved'])
    assert.deepEqual(fake.log, ['begin', 'rollback', 'begin', 'commit'])
  })

  it('rejects only the write that throws when the transaction survives it', async () => {
    const fake = fakeTransactions()
    const scheduler = manualScheduler()
    const writer = new GroupCommitWriter(fake.tx, scheduler.schedule)
    const outcomes = [
      writer.write(() => 1),
      writer.write(() => {
        throw new Error('constraint failed')
      }),
      writer.write(() => 3),
    ].map(settle)
    scheduler.runAll()
    assert.deepEqual(await Promise.all(outcomes), ['resolved', 'rejected: constraint failed', 'resolved'])
    assert.deepEqual(fake.log, ['begin', 'commit'])
  })

  it('splits a long queue into transactions of at most MAX_BATCH writes', async () => {
    const fake = fakeTransactions()
    const scheduler = manualScheduler()
    const writer = new GroupCommitWriter(fake.tx, scheduler.schedule)
    const writes = Array.from({ length: MAX_BATCH + 1 }, (_, i) => writer.write(() => i))
    scheduler.runAll()
    const values = await Promise.all(writes)
    assert.equal(values[MAX_BATCH], MAX_BATCH)
    assert.equal(writer.batches, 2)
  })
})

describe('SQLite group commit on a real file', () => {
  it('batches concurrent writes, isolates a failing one, and what resolved is visible to another connection', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'notes-group-commit-'))
    try {
      const db = openSqliteDatabase({ dataDir: dir })
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY)')
      const writer = sqliteGroupCommit(db)
      const insert = db.prepare('INSERT INTO t (id) VALUES (?)')
      const outcomes = [1, 2, 1, 3].map((id) => settle(writer.write(() => insert.run(id))))
      const results = await Promise.all(outcomes)
      assert.deepEqual(
        results.map((r) => r.split(':')[0]),
        ['resolved', 'resolved', 'rejected', 'resolved'],
      )
      assert.equal(writer.batches, 1)
      const reader = new Database(join(dir, SQLITE_FILE), { readonly: true })
      assert.deepEqual(reader.prepare('SELECT id FROM t ORDER BY id').pluck().all(), [1, 2, 3])
      reader.close()
      db.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('the store commits queued writes on close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'notes-group-commit-'))
    try {
      const store = openSqliteStore({ dataDir: dir })
      const user = makeUser()
      const created = store.createUser(user)
      const notes = Array.from({ length: 5 }, () => makeNote(user._id))
      const inserted = notes.map((n) => store.insertNote(n))
      await store.close() // before the scheduled flush has run
      assert.equal(await created, true)
      await Promise.all(inserted)
      const reader = new Database(join(dir, SQLITE_FILE), { readonly: true })
      assert.equal(reader.prepare('SELECT count(*) FROM notes WHERE user_id = ?').pluck().get(user._id), 5)
      reader.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
