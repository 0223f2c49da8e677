// The shared numbering of migrations (src/store/migrations.ts): each dialect's list and files
// follow the one sequence, and a database made at any earlier version of the builds that
// numbered each dialect on its own (every prefix of their lists, with rows written by that
// version's SQL) upgrades to the shared numbers and the current schema, keeping every row.
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { after, describe, it } from 'node:test'
import type { Database } from 'better-sqlite3'
import pg from 'pg'
import { changes, earlierNumbers, renumbered } from '../src/store/migrations.js'
import { migrateDatabase } from '../src/store/postgres/index.js'
import { migrations as postgresMigrations } from '../src/store/postgres/migrations.js'
import { migrateSqlite, openSqliteDatabase, openSqliteStore } from '../src/store/sqlite/index.js'
import { migrations as sqliteMigrations } from '../src/store/sqlite/migrations.js'
import { postgresSchemaText, sqliteSchemaText } from './support/schema-text.js'
import { type TestDatabase, createTestDatabase, serviceAvailable } from './support/services.js'
import { tempDir } from './support/temp.js'

const ROOT = resolve(import.meta.dirname, '..')
const lists = { sqlite: sqliteMigrations, postgres: postgresMigrations } as const

/** A dialect's list as the builds before the shared numbering had it: same changes, their numbers. */
function earlierList<M extends { version: number; name: string }>(dialect: 'sqlite' | 'postgres', list: readonly M[]): M[] {
  const numbers = earlierNumbers[dialect]
  return list
    .filter((m) => numbers[m.name] !== undefined)
    .map((m) => ({ ...m, version: numbers[m.name]! }))
    .sort((a, b) => a.version - b.version)
}

describe('one numbering for both dialects', () => {
  it('numbers the changes 1, 2, 3… with unique names', () => {
    assert.deepEqual(changes.map((c) => c.version), changes.map((_, i) => i + 1))
    assert.equal(new Set(changes.map((c) => c.name)).size, changes.length)
  })

  for (const dialect of ['sqlite', 'postgres'] as const) {
    it(`${dialect}: the list is the sequence's changes of ${dialect}, one file each, named NNNN-name.ts`, () => {
      const list = lists[dialect]
      const expected = changes.filter((c) => c.in.includes(dialect)).map((c) => ({ version: c.version, name: c.name }))
      assert.deepEqual(list.map((m) => ({ version: m.version, name: m.name })), expected)
      const files = readdirSync(resolve(ROOT, `src/store/${dialect}/migrations`)).sort()
      assert.deepEqual(files, list.map((m) => `${String(m.version).padStart(4, '0')}-${m.name}.ts`))
    })

    it(`${dialect}: the earlier numbers name this dialect's changes before the last renumbering`, () => {
      for (const name of Object.keys(earlierNumbers[dialect])) {
        assert.ok(lists[dialect].some((m) => m.name === name), `${name} is a ${dialect} migration`)
      }
    })
  }

  it('renumbers an earlier database, and leaves a current, later or empty one alone', () => {
    const earlier = earlierList('sqlite', sqliteMigrations).map(({ version, name }) => ({ version, name }))
    assert.deepEqual(renumbered('sqlite', earlier), sqliteMigrations.map(({ version, name }) => ({ version, name })).filter((m) => m.version <= 11))
    assert.equal(renumbered('sqlite', []), undefined)
    assert.equal(renumbered('sqlite', sqliteMigrations.map(({ version, name }) => ({ version, name }))), undefined)
    assert.equal(renumbered('postgres', [...postgresMigrations.map(({ version, name }) => ({ version, name })), { version: 99, name: 'later' }]), undefined)
    // Only the first rows of an earlier database: still recognised.
    assert.deepEqual(renumbered('postgres', [{ version: 1, name: 'init' }, { version: 6, name: 'nfkc-email-keys' }]), [
      { version: 1, name: 'init' },
      { version: 7, name: 'nfkc-email-keys' },
    ])
    // Neither numbering: refused rather than guessed.
    assert.throws(() => renumbered('sqlite', [{ version: 3, name: 'sessions' }]), /does not know by those numbers: 3 'sessions'/)
  })
})

const USERS = [
  ['u1', 'Ada Lovelace', 'Ada@Example.com', 'ada@example.com', 'hash-1', '2026-01-01T00:00:00.000Z'],
  ['u2', 'Grace 🎉 Hopper', 'grace@example.com', 'grace@example.com', 'hash-2', '2026-01-02T00:00:00.000Z'],
  ['u3', 'No Notes', 'none@example.com', 'none@example.com', 'hash-3', '2026-01-03T00:00:00.000Z'],
] as const
const NOTES = [
  ['n1', 'u1', 'First', 'body é', ['a', 'b'], true, '2026-02-01T00:00:00.000Z', '2026-02-02T00:00:00.000Z'],
  ['n2', 'u1', 'Second', '', [], false, '2026-02-03T00:00:00.000Z', '2026-02-03T00:00:00.000Z'],
  ['n3', 'u2', 'Émoji 🎉', 'line\nline', ['🎉'], false, '2026-02-04T00:00:00.000Z', '2026-02-04T00:00:00.000Z'],
] as const
const SESSIONS = [
  ['s1', 'u1', '2026-03-01T00:00:00.000Z', '2026-03-02T00:00:00.000Z', 'curl'],
  ['s2', 'u2', '2026-03-03T00:00:00.000Z', '2026-03-03T00:00:00.000Z', 'web'],
] as const
const sessionTable = (names: string[]) => names.includes('sessions')

describe('sqlite: a database of every earlier version upgrades, keeping every row', () => {
  const dir = tempDir()
  after(() => dir.remove())
  const earlier = earlierList('sqlite', sqliteMigrations)
  const snapshot = readFileSync(resolve(ROOT, 'src/store/sqlite/schema.sql'), 'utf8')
  const rowsOf = (db: Database, hasSessions: boolean) => ({
    users: db.prepare('SELECT id, full_name, email, email_key, password_hash, created_on FROM users ORDER BY id').all(),
    notes: db.prepare('SELECT id, user_id, title, content, tags, is_pinned, created_on, updated_on FROM notes ORDER BY id').all(),
    sessions: hasSessions ? db.prepare('SELECT * FROM sessions ORDER BY id').all() : [],
  })

  for (let k = 1; k <= earlier.length; k++) {
    const last = earlier[k - 1]!
    it(`from version ${last.version} ('${last.name}')`, async () => {
      const dataDir = `${dir.path}/v${last.version}`
      const db = openSqliteDatabase({ dataDir })
      assert.equal(migrateSqlite(db, earlier.slice(0, k)), k)
      const applied = earlier.slice(0, k).map((m) => m.name)
      for (const u of USERS) db.prepare('INSERT INTO users (id, full_name, email, email_key, password_hash, created_on) VALUES (?, ?, ?, ?, ?, ?)').run(...u)
      for (const [id, user, title, content, tags, pinned, created, updated] of NOTES) {
        db.prepare('INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
          .run(id, user, title, content, JSON.stringify(tags), pinned ? 1 : 0, created, updated)
      }
      if (sessionTable(applied)) {
        for (const s of SESSIONS) db.prepare('INSERT INTO sessions (id, user_id, created_on, last_used_on, client) VALUES (?, ?, ?, ?, ?)').run(...s)
      }
      const before = rowsOf(db, sessionTable(applied))
      const appliedOn = db.prepare('SELECT name, applied_on FROM schema_migrations ORDER BY name').all()
      db.close()

      const store = openSqliteStore({ dataDir }) // the current build: renumbers, then migrates
      assert.deepEqual((await store.listNotes('u1')).map((n) => n._id), ['n1', 'n2'])
      await store.close()

      const upgraded = openSqliteDatabase({ dataDir })
      const after = rowsOf(upgraded, true)
      assert.deepEqual(after.users, before.users)
      assert.deepEqual(after.notes, before.notes)
      if (sessionTable(applied)) assert.deepEqual(after.sessions, before.sessions)
      const recorded = upgraded.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all()
      assert.deepEqual(recorded, sqliteMigrations.map(({ version, name }) => ({ version, name })))
      const kept = upgraded.prepare(`SELECT name, applied_on FROM schema_migrations WHERE name IN (${applied.map(() => '?').join(', ')}) ORDER BY name`).all(...applied)
      assert.deepEqual(kept, appliedOn, 'each earlier row keeps when it was applied')
      const usage = upgraded.prepare('SELECT user_id, notes FROM account_usage ORDER BY user_id').all()
      assert.deepEqual(usage, [{ user_id: 'u1', notes: 2 }, { user_id: 'u2', notes: 1 }, { user_id: 'u3', notes: 0 }])
      assert.equal(upgraded.prepare('SELECT count(*) FROM user_versions').pluck().get(), USERS.length)
      assert.equal(sqliteSchemaText(upgraded), snapshot, 'the upgraded schema is a fresh one')
      assert.equal(migrateSqlite(upgraded), 0, 'renumbered once: nothing left to run')
      upgraded.close()
    })
  }
})

if (serviceAvailable('postgresql')) {
  describe('postgresql: a database of every earlier version upgrades, keeping every row', () => {
    const databases: TestDatabase[] = []
    after(async () => {
      await Promise.all(databases.map((d) => d.drop()))
    })
    const earlier = earlierList('postgres', postgresMigrations)
    const snapshot = readFileSync(resolve(ROOT, 'src/store/postgres/schema.sql'), 'utf8')
    const rowsOf = async (client: pg.Client, hasSessions: boolean) => ({
      users: (await client.query('SELECT id, full_name, email, email_key, password_hash, created_on FROM users ORDER BY id')).rows,
      notes: (await client.query('SELECT id, user_id, title, content, tags, is_pinned, created_on, updated_on FROM notes ORDER BY id')).rows,
      sessions: hasSessions ? (await client.query('SELECT * FROM sessions ORDER BY id')).rows : [],
    })

    it("migration 13: an account's change is announced on migration 10's channel only", async () => {
      const db = await createTestDatabase()
      databases.push(db)
      await migrateDatabase({ url: db.url })
      const listener = new pg.Client({ connectionString: db.url })
      const writer = new pg.Client({ connectionString: db.url })
      await Promise.all([listener.connect(), writer.connect()])
      try {
        const heard: string[] = []
        listener.on('notification', (n) => heard.push(`${n.channel} ${n.payload ?? ''}`))
        await listener.query('LISTEN notes_service_accounts; LISTEN notes_service_account_versions')
        await writer.query("INSERT INTO users VALUES ('u1', 'A', 'a@example.com', 'a@example.com', 'h', '2026-01-01T00:00:00.000Z')")
        await writer.query("UPDATE users SET full_name = 'B' WHERE id = 'u1'")
        await writer.query("DELETE FROM users WHERE id = 'u1'")
        await writer.query('TRUNCATE users CASCADE')
        // A notice of the listener's own, sent last, arrives after every earlier one.
        await writer.query("SELECT pg_notify('notes_service_account_versions', 'done')")
        for (let i = 0; i < 100 && !heard.includes('notes_service_account_versions done'); i++) await new Promise((r) => setTimeout(r, 20))
        assert.deepEqual(heard, [
          'notes_service_account_versions u1',
          'notes_service_account_versions u1',
          'notes_service_account_versions u1',
          'notes_service_account_versions ',
          'notes_service_account_versions done',
        ])
        const functions = await writer.query("SELECT 1 FROM pg_proc WHERE proname = 'notify_account_change'")
        assert.equal(functions.rowCount, 0)
      } finally {
        await Promise.all([listener.end(), writer.end()])
      }
    })

    for (let k = 1; k <= earlier.length; k++) {
      const last = earlier[k - 1]!
      it(`from version ${last.version} ('${last.name}')`, async () => {
        const db = await createTestDatabase()
        databases.push(db)
        assert.equal(await migrateDatabase({ url: db.url }, earlier.slice(0, k)), k)
        const applied = earlier.slice(0, k).map((m) => m.name)
        const client = new pg.Client({ connectionString: db.url })
        await client.connect()
        try {
          for (const u of USERS) await client.query('INSERT INTO users (id, full_name, email, email_key, password_hash, created_on) VALUES ($1, $2, $3, $4, $5, $6)', [...u])
          for (const n of NOTES) {
            await client.query('INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [...n])
          }
          if (sessionTable(applied)) {
            for (const s of SESSIONS) await client.query('INSERT INTO sessions (id, user_id, created_on, last_used_on, client) VALUES ($1, $2, $3, $4, $5)', [...s])
          }
          const before = await rowsOf(client, sessionTable(applied))
          const appliedOn = (await client.query('SELECT name, applied_on FROM schema_migrations ORDER BY name COLLATE "C"')).rows

          assert.equal(await migrateDatabase({ url: db.url }), postgresMigrations.length - k)

          const after = await rowsOf(client, true)
          assert.deepEqual(after.users, before.users)
          assert.deepEqual(after.notes, before.notes)
          if (sessionTable(applied)) assert.deepEqual(after.sessions, before.sessions)
          const recorded = (await client.query('SELECT version, name FROM schema_migrations ORDER BY version')).rows
          assert.deepEqual(recorded, postgresMigrations.map(({ version, name }) => ({ version, name })))
          const kept = (await client.query('SELECT name, applied_on FROM schema_migrations WHERE name = ANY($1) ORDER BY name COLLATE "C"', [applied])).rows
          assert.deepEqual(kept, appliedOn, 'each earlier row keeps when it was applied')
          const usage = (await client.query('SELECT user_id, sum(notes)::int AS notes FROM account_usage GROUP BY user_id ORDER BY user_id')).rows
          assert.deepEqual(usage, [{ user_id: 'u1', notes: 2 }, { user_id: 'u2', notes: 1 }])
          assert.equal((await client.query<{ n: number }>('SELECT count(*)::int AS n FROM account_versions')).rows[0]!.n, USERS.length)
          assert.equal(await postgresSchemaText(client), snapshot, 'the upgraded schema is a fresh one')
          assert.equal(await migrateDatabase({ url: db.url }), 0, 'renumbered once: nothing left to run')
        } finally {
          await client.end()
        }
      })
    }
  })
}
