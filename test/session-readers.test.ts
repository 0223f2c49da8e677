// How the stores batch the authenticate hook's session lookups (Store.findSession) without
// keeping anything: PostgreSQL reads the sessions asked for in one turn with one query, never one
// sent before the request arrived (postgres/session-reader.ts); SQLite reads them in one read
// transaction at the end of the turn (sqlite/read-batch.ts), so a write committed after the call
// and before the read is seen.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Database from 'better-sqlite3'
import type { Query } from '../src/store/postgres/query.js'
import { SessionReader } from '../src/store/postgres/session-reader.js'
import { batchedReads } from '../src/store/sqlite/read-batch.js'

const settled = () => new Promise((resolve) => setImmediate(resolve))

describe('PostgreSQL session reader', () => {
  /** A Query that records each call's session ids and answers, with the rows of `live`, when told to. */
  const fakeQuery = (live: Set<string>) => {
    const calls: { ids: string[]; answer: () => void; fail: (err: Error) => void }[] = []
    const row = (id: string) => ({
      id: `user-of-${id}`, full_name: 'N', email: 'e', email_key: 'e', password_hash: 'h', created_on: 'c', tokens_not_before: null,
      s_id: id, s_created_on: 'sc', s_last_used_on: 'su', s_client: 'agent \uffff0',
    })
    const query = ((_name: string, _text: string, values: unknown[]) =>
      new Promise((resolve, reject) => {
        const ids = values[0] as string[]
        calls.push({ ids, answer: () => resolve({ rows: ids.filter((id) => live.has(id)).map(row) }), fail: reject })
      })) as unknown as Query
    return { calls, query }
  }

  it('reads the sessions asked for in one turn with one query, each once, and gives every caller records of its own', async () => {
    const { calls, query } = fakeQuery(new Set(['s1', 's2']))
    const reader = new SessionReader(query)
    const reads = [reader.read('s1'), reader.read('s2'), reader.read('s1'), reader.read('gone')]
    await settled()
    assert.deepEqual(calls.map((c) => c.ids), [['s1', 's2', 'gone']])
    calls[0]?.answer()
    const [a, b, again, gone] = await Promise.all(reads)
    assert.deepEqual(a?.session, { _id: 's1', userId: 'user-of-s1', createdOn: 'sc', lastUsedOn: 'su', client: 'agent \u0000' })
    assert.equal(b?.user._id, 'user-of-s2')
    assert.deepEqual(again, a)
    assert.notEqual(again, a, 'records of its own')
    assert.equal(gone, undefined)
  })

  it('never answers a request with a query sent before it arrived', async () => {
    const live = new Set(['s1'])
    const { calls, query } = fakeQuery(live)
    const reader = new SessionReader(query)
    const early = reader.read('s1')
    await settled()
    // Arrives while the first query is under way; the session ends meanwhile.
    const late = reader.read('s1')
    calls[0]?.answer()
    assert.ok(await early)
    live.delete('s1')
    await settled()
    assert.equal(calls.length, 2, 'the late request gets a query of its own, sent after the first ended')
    calls[1]?.answer()
    assert.equal(await late, undefined)
  })

  it('fails every request of a failed query, and the next request sends a new one', async () => {
    const { calls, query } = fakeQuery(new Set(['s1']))
    const reader = new SessionReader(query)
    const reads = [reader.read('s1'), reader.read('s2')]
    await settled()
    calls[0]?.fail(new Error('database gone'))
    for (const r of reads) await assert.rejects(r, /database gone/)
    const again = reader.read('s1')
    await settled()
    calls[1]?.answer()
    assert.ok(await again)
  })
})

describe('SQLite batched reads', () => {
  const open = () => {
    const db = new Database(':memory:')
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)')
    db.prepare("INSERT INTO t VALUES ('a', '1')").run()
    return db
  }

  it('answers the calls of one turn in one read transaction, each with a read made after its call', async () => {
    const db = open()
    const inTransaction: boolean[] = []
    const get = db.prepare<[string], { v: string }>('SELECT v FROM t WHERE k = ?')
    const read = batchedReads(db, (k: string) => {
      inTransaction.push(db.inTransaction)
      return get.get(k)?.v
    })
    const reads = [read('a'), read('b'), read('a')]
    // Committed after the calls, before the end of the turn: the reads see it.
    db.prepare("UPDATE t SET v = '2' WHERE k = 'a'").run()
    assert.deepEqual(await Promise.all(reads), ['2', undefined, '2'])
    assert.deepEqual(inTransaction, [true, true, true])
    assert.equal(db.inTransaction, false, 'the transaction is over')
    assert.equal(await read('a'), '2')
    db.close()
  })

  it('rejects only the call whose read failed, and every call once the database is closed', async () => {
    const db = open()
    const read = batchedReads(db, (k: string) => {
      if (k === 'bad') throw new Error('read failed')
      return k
    })
    const [good, bad] = [read('good'), read('bad')]
    assert.equal(await good, 'good')
    await assert.rejects(bad, /read failed/)
    const late = read('late')
    db.close()
    await assert.rejects(late, /not open/)
  })
})
