// The per-account note quota in the stores (both drivers): the usage the triggers keep always
// equals a recount, whatever the writes (a property); a quota-checked insert or edit refuses
// atomically, so parallel adds at the limit leave exactly the limit; deletes, pins and imports
// are never refused; the migration backfills usage of notes written before it.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import type pg from 'pg'
import { DEFAULT_LIMITS } from '../src/store/limits.js'
import { migratePostgres, openPostgresStore } from '../src/store/postgres/index.js'
import { migrations as postgresMigrations } from '../src/store/postgres/migrations.js'
import { encodeText } from '../src/store/postgres/rows.js'
import { migrateSqlite } from '../src/store/sqlite/index.js'
import { migrations as sqliteMigrations } from '../src/store/sqlite/migrations.js'
import { type NoteQuota, NoteQuotaExceededError, type NoteRecord } from '../src/store/types.js'
import { type TestDatabase, createTestDatabase, operatorPool, serviceAvailable } from './support/services.js'
import { makeNote, makeUser } from './support/store-contract.js'
import { openStoreWithSql } from './support/sql-stores.js'
import { type TestStore, type StoreKind, openTestStore, storeKinds } from './support/stores.js'
import { listedNotes } from './support/listed.js'
import { erase, noteOf, terms } from './support/note-writes.js'

/** A note's size as each store counts it: UTF-8 bytes of the stored strings (types.ts NoteQuota). */
function sizeOn(kind: StoreKind) {
  const stored = kind === 'postgresql' ? encodeText : (s: string) => s
  const bytes = (s: string) => Buffer.byteLength(stored(s))
  return (n: Pick<NoteRecord, 'title' | 'content' | 'tags'>) =>
    bytes(n.title) + bytes(n.content) + n.tags.reduce((sum, t) => sum + bytes(t), 0)
}

/** Rejects with the quota error of `limit`. */
async function refused(write: Promise<unknown>, limit: 'notes' | 'bytes'): Promise<void> {
  await assert.rejects(write, (err: unknown) => err instanceof NoteQuotaExceededError && err.limit === limit)
}

// Strings with what the stores treat specially: multi-byte characters, U+0000 and U+FFFF
// (escaped by the PostgreSQL store), lone surrogates (written as U+FFFD).
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('é', '\u0000', '\uffff', 'a\u0000\uffffb', '😀', '\ud800', '"\\\n'),
)
const nonEmpty = text.map((s) => s || 'x')
const tagList = fc.array(text, { maxLength: 4 })

type Op =
  | { kind: 'add'; title: string; content: string; tags: string[] }
  | { kind: 'edit'; pick: number; title?: string; content?: string; tags?: string[] }
  | { kind: 'pin'; pick: number }
  | { kind: 'delete'; pick: number }
  | { kind: 'import'; title: string; content: string; tags: string[] }

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), title: nonEmpty, content: nonEmpty, tags: tagList }),
  fc.record(
    { kind: fc.constant('edit' as const), pick: fc.nat(), title: nonEmpty, content: nonEmpty, tags: tagList },
    { requiredKeys: ['kind', 'pick'] },
  ),
  fc.record({ kind: fc.constant('pin' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('import' as const), title: nonEmpty, content: nonEmpty, tags: tagList }),
)

for (const kind of storeKinds()) {
  describe(`note quota in the ${kind} store`, () => {
    const size = sizeOn(kind)
    const opened: Array<{ close(): Promise<void> }> = []
    after(async () => {
      for (const store of opened) await store.close()
    })
    const kept = <T extends { close(): Promise<void> }>(store: T): T => (opened.push(store), store)
    /** A fresh store held to `quota`, as a server configured with it opens one (store/limits.ts). */
    const storeHeldTo = async (quota: NoteQuota) => kept(await openTestStore(kind, true, { ...DEFAULT_LIMITS, quota }))
    /** As storeHeldTo, on a database over which `openAnother` opens another server's store, held to other limits. */
    const databaseHeldTo = async (quota: NoteQuota) => kept(await openStoreWithSql(kind, { ...DEFAULT_LIMITS, quota }))

    async function newAccount(store: TestStore): Promise<string> {
      const user = makeUser()
      assert.equal(await store.createUser(user), true)
      return user._id
    }

    it('keeps usage equal to the size of what was written, whatever the writes', async () => {
      // Adds held to a quota; edits, pins, deletes and imports through a store without one.
      const db = await databaseHeldTo({ notes: 1_000, bytes: 1_000_000 })
      const store = await db.openAnother()
      await fc.assert(
        fc.asyncProperty(fc.array(op, { maxLength: 12 }), async (ops) => {
          const userId = await newAccount(store)
          // The account's notes as written (a model): read back, a lone surrogate that SQLite
          // stored as its 3 bytes comes out as three U+FFFD, so the store is not asked.
          const model = new Map<string, Pick<NoteRecord, 'title' | 'content' | 'tags'>>()
          const ids = () => [...model.keys()]
          const at = (pick: number) => ids()[pick % model.size] as string
          for (const o of ops) {
            if (o.kind === 'add' || o.kind === 'import') {
              const note = makeNote(userId, { title: o.title, content: o.content, tags: o.tags })
              if (o.kind === 'add') assert.equal(await db.store.insertNote(note), true)
              else assert.deepEqual(await store.importNotes([note]), ['inserted'])
              model.set(note._id, note)
            } else if (model.size === 0) continue
            else if (o.kind === 'edit') {
              const patch = {
                ...(o.title === undefined ? {} : { title: o.title }),
                ...(o.content === undefined ? {} : { content: o.content }),
                ...(o.tags === undefined ? {} : { tags: o.tags }),
              }
              const id = at(o.pick)
              assert.ok(await store.updateNote(userId, id, patch, new Date().toISOString(), terms()))
              model.set(id, { ...(model.get(id) as NoteRecord), ...patch })
            } else if (o.kind === 'pin')
              assert.ok(
                await store.updateNote(userId, at(o.pick), { isPinned: true }, new Date().toISOString(), terms()),
              )
            else {
              const id = at(o.pick)
              assert.ok(await store.deleteNote(userId, id, erase()))
              model.delete(id)
            }
          }
          const bytes = [...model.values()].reduce((sum, n) => sum + size(n), 0)
          assert.deepEqual(await store.noteUsage(userId), { notes: model.size, bytes })
        }),
        { numRuns: kind === 'postgresql' ? 15 : 40 },
      )
    })

    it('refuses the note past the count limit, and takes one again after a delete', async () => {
      const store = await storeHeldTo({ notes: 3, bytes: 0 })
      const userId = await newAccount(store)
      const notes = [makeNote(userId), makeNote(userId), makeNote(userId)]
      for (const note of notes) assert.equal(await store.insertNote(note), true)
      await refused(store.insertNote(makeNote(userId)), 'notes')
      assert.deepEqual(await store.noteUsage(userId), { notes: 3, bytes: 3 * size(makeNote(userId)) })
      assert.ok(await store.deleteNote(userId, (notes[0] as NoteRecord)._id, erase()), 'a delete is never refused')
      assert.equal(await store.insertNote(makeNote(userId)), true)
      await refused(store.insertNote(makeNote(userId)), 'notes')
    })

    it('lets exactly the limit through when 50 adds arrive at once', async () => {
      const store = await storeHeldTo({ notes: 21, bytes: 0 })
      const userId = await newAccount(store)
      await store.insertNote(makeNote(userId))
      const results = await Promise.allSettled(Array.from({ length: 50 }, () => store.insertNote(makeNote(userId))))
      assert.equal(results.filter((r) => r.status === 'fulfilled' && r.value).length, 20)
      assert.ok(
        results.every(
          (r) => r.status === 'fulfilled' || (r.reason instanceof NoteQuotaExceededError && r.reason.limit === 'notes'),
        ),
      )
      assert.equal((await listedNotes(store, userId)).length, 21)
      assert.equal((await store.noteUsage(userId))?.notes, 21)
    })

    it('refuses a note that would pass the byte limit, also when adds race', async () => {
      const store = await storeHeldTo({ notes: 0, bytes: 100 })
      const userId = await newAccount(store)
      const note = (content: string) => makeNote(userId, { title: 'tt', content, tags: ['x'] })
      assert.equal(await store.insertNote(note('c'.repeat(57))), true) // 60 bytes
      await refused(store.insertNote(note('c'.repeat(38))), 'bytes') // 41 more: 101
      assert.equal(await store.insertNote(note('é'.repeat(18) + 'c')), true) // 40 more: exactly 100
      assert.deepEqual(await store.noteUsage(userId), { notes: 2, bytes: 100 })

      const other = await newAccount(store)
      const ten = () => makeNote(other, { title: 'a', content: 'b'.repeat(9), tags: [] })
      const results = await Promise.allSettled(Array.from({ length: 30 }, () => store.insertNote(ten())))
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 10)
      assert.deepEqual(await store.noteUsage(other), { notes: 10, bytes: 100 })
    })

    it('refuses an edit that grows the account past the byte limit; shrinking, pins and deletes always pass', async () => {
      const db = await databaseHeldTo({ notes: 0, bytes: 50 })
      const store = db.store
      const userId = await newAccount(store)
      const a = makeNote(userId, { title: 'a', content: 'c'.repeat(29), tags: [] }) // 30
      const b = makeNote(userId, { title: 'b', content: 'c'.repeat(9), tags: [] }) // 10
      await store.insertNote(a)
      await store.insertNote(b)
      const now = () => new Date().toISOString()
      await refused(store.updateNote(userId, a._id, { content: 'c'.repeat(40) }, now(), terms()), 'bytes')
      assert.equal((await store.findNote(userId, a._id))?.content, a.content, 'a refused edit changes nothing')
      assert.equal(
        noteOf(await store.updateNote(userId, a._id, { tags: ['d'.repeat(10)] }, now(), terms()))?.tags[0],
        'd'.repeat(10),
      ) // exactly 50
      // Over the limit (a server with a lower one): shrinking still works, growing does not.
      const lower = await db.openAnother({ ...DEFAULT_LIMITS, quota: { notes: 0, bytes: 20 } })
      assert.ok(await lower.updateNote(userId, a._id, { content: 'short' }, now(), terms()))
      assert.ok(await lower.updateNote(userId, a._id, { isPinned: true }, now(), terms()))
      assert.ok(await lower.updateNote(userId, b._id, { title: 'B' }, now(), terms()), 'same size passes')
      await refused(lower.updateNote(userId, b._id, { title: 'BB' }, now(), terms()), 'bytes')
      assert.equal(
        await lower.updateNote(userId, makeNote(userId)._id, { title: 'x' }, now(), terms()),
        undefined,
        'no such note',
      )
      assert.ok(await lower.deleteNote(userId, a._id, erase()))
      assert.deepEqual(await lower.noteUsage(userId), { notes: 1, bytes: 10 })
    })

    it('answers false for an account that is gone, and never holds an import to the quota', async () => {
      const db = await databaseHeldTo({ notes: 2, bytes: 0 })
      const store = db.store
      assert.equal(await (await storeHeldTo({ notes: 5, bytes: 5 })).insertNote(makeNote(makeUser()._id)), false)
      assert.equal(await store.noteUsage(makeUser()._id), undefined)
      const userId = await newAccount(store)
      const before = await store.accountsOverQuota()
      const outcomes = await store.importNotes([makeNote(userId), makeNote(userId), makeNote(userId)])
      assert.deepEqual(outcomes, ['inserted', 'inserted', 'inserted'])
      assert.equal(await store.accountsOverQuota(), before + 1)
      assert.equal(
        await (await db.openAnother({ ...DEFAULT_LIMITS, quota: { notes: 0, bytes: 0 } })).accountsOverQuota(),
        0,
        'no limit, no account over it',
      )
      await refused(store.insertNote(makeNote(userId)), 'notes')
    })
  })
}

if (serviceAvailable('postgresql')) {
  describe('note quota in PostgreSQL: the check in one slot and in all', () => {
    let db: TestDatabase
    let store: TestStore
    let pool: pg.Pool
    const SLOTS = 16
    before(async () => {
      db = await createTestDatabase()
      store = await openPostgresStore({ url: db.url, poolSize: 8 })
      pool = operatorPool(db.url)
    })
    after(async () => {
      await store.close()
      await pool.end()
      await db.drop()
    })

    const check = async (userId: string, exclusive: boolean, maxNotes: number, maxBytes: number) =>
      (
        await pool.query<{ v: string }>("SELECT note_quota_check($1, NULL, 'tt', 'cc', '{}', $2, $3, $4, 10) AS v", [
          userId,
          exclusive,
          maxNotes,
          maxBytes,
        ])
      ).rows[0]?.v

    it('passes in one slot only while a write in every slot at once would fit', async () => {
      const user = makeUser()
      await store.createUser(user)
      for (let i = 0; i < 3; i++) await store.insertNote(makeNote(user._id, { title: 'tt', content: 'cc', tags: [] }))
      assert.equal(await check(user._id, false, 3 + SLOTS, 12 + 10 * SLOTS), 'pass')
      assert.equal(await check(user._id, false, 2 + SLOTS, 12 + 10 * SLOTS), 'retry')
      assert.equal(await check(user._id, false, 3 + SLOTS, 11 + 10 * SLOTS), 'retry')
      assert.equal(await check(user._id, true, 4, 16), 'pass')
      assert.equal(await check(user._id, true, 3, 16), 'notes')
      assert.equal(await check(user._id, true, 4, 15), 'bytes')
    })

    it('lets exactly the limit through when the first adds pass in their slots and the last in all', async () => {
      const user = makeUser()
      await store.createUser(user)
      const limit = 60
      // A server held to the limit, over the same database.
      const held = await openPostgresStore({
        url: db.url,
        poolSize: 8,
        limits: { ...DEFAULT_LIMITS, quota: { notes: limit, bytes: 0 } },
      })
      try {
        const results = await Promise.allSettled(
          Array.from({ length: limit + 30 }, () => held.insertNote(makeNote(user._id))),
        )
        assert.equal(results.filter((r) => r.status === 'fulfilled').length, limit)
        assert.deepEqual(await held.noteUsage(user._id), { notes: limit, bytes: limit * 2 })
      } finally {
        await held.close()
      }
    })
  })
}

/** Notes written before the usage migration (SQLite 3, PostgreSQL 5) are counted by its backfill. */
describe('usage backfill', () => {
  const notes = [
    { title: 'é', content: 'content', tags: ['a', 'bb'] },
    { title: 'x', content: '😀', tags: [] },
  ]
  it('sqlite: migration 5 counts the notes already there, and accounts without notes as 0', () => {
    const db = new Database(':memory:')
    migrateSqlite(
      db,
      sqliteMigrations.filter((m) => m.version < 5),
    )
    const insertUser = db.prepare("INSERT INTO users VALUES (?, 'n', ?, ?, 'h', '2026')")
    insertUser.run('u1', 'u1@x', 'u1@x')
    insertUser.run('u2', 'u2@x', 'u2@x')
    const insertNote = db.prepare(
      "INSERT INTO notes (id, user_id, title, content, tags, created_on, updated_on) VALUES (?, 'u1', ?, ?, ?, '2026', '2026')",
    )
    notes.forEach((n, i) => insertNote.run(`n${i}`, n.title, n.content, JSON.stringify(n.tags)))
    assert.equal(migrateSqlite(db), sqliteMigrations.length - 2)
    assert.deepEqual(db.prepare('SELECT user_id, notes, bytes FROM account_usage ORDER BY user_id').all(), [
      { user_id: 'u1', notes: 2, bytes: 2 + 7 + 3 + 1 + 4 },
      { user_id: 'u2', notes: 0, bytes: 0 },
    ])
    db.close()
  })

  if (serviceAvailable('postgresql')) {
    it('postgresql: migration 5 counts the notes already there', async () => {
      const db = await createTestDatabase()
      const pool = operatorPool(db.url)
      try {
        const client = await pool.connect()
        try {
          await migratePostgres(
            client,
            postgresMigrations.filter((m) => m.version < 5),
          )
          await client.query(
            "INSERT INTO users VALUES ('u1', 'n', 'u1@x', 'u1@x', 'h', '2026'), ('u2', 'n', 'u2@x', 'u2@x', 'h', '2026')",
          )
          for (const [i, n] of notes.entries()) {
            await client.query(
              "INSERT INTO notes (id, user_id, title, content, tags, created_on, updated_on) VALUES ($1, 'u1', $2, $3, $4, '2026', '2026')",
              [`n${i}`, n.title, n.content, n.tags],
            )
          }
          assert.equal(await migratePostgres(client), postgresMigrations.length - 4)
          // Rows per shard; an account without notes has none.
          const { rows } = await client.query(
            'SELECT user_id, sum(notes)::int AS notes, sum(bytes)::int AS bytes FROM account_usage GROUP BY user_id ORDER BY user_id',
          )
          assert.deepEqual(rows, [{ user_id: 'u1', notes: 2, bytes: 2 + 7 + 3 + 1 + 4 }])
        } finally {
          client.release()
        }
      } finally {
        await pool.end()
        await db.drop()
      }
    })
  }
})
