// The shared numbering of migrations (src/store/migrations.ts): each dialect's list and files
// follow the one sequence, and a database made at any earlier version of the builds that
// numbered each dialect on its own (every prefix of their lists, with rows written by that
// version's SQL) upgrades to the current schema, keeping every row, recording the shared numbers
// in schema_changes and leaving schema_migrations such that those builds, started on it again,
// find nothing to run (test/support/earlier-builds.ts).
import assert from 'node:assert/strict'
import { readFileSync, readdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { after, describe, it } from 'node:test'
import type { Database } from 'better-sqlite3'
import pg from 'pg'
import { earlierNumbers, sharedNumbers } from '../src/store/migrations.js'
import { migrateDatabase, migratePostgres } from '../src/store/postgres/index.js'
import { migrations as postgresMigrations } from '../src/store/postgres/migrations.js'
import { migrateSqlite, openSqliteDatabase, openSqliteStore } from '../src/store/sqlite/index.js'
import { migrations as sqliteMigrations } from '../src/store/sqlite/migrations.js'
import { earlierList, earlierMigratePostgres, earlierMigrateSqlite, earlierVersions } from './support/earlier-builds.js'
import { postgresSchemaText, sqliteSchemaText } from './support/schema-text.js'
import { type TestDatabase, createTestDatabase, serviceAvailable } from './support/services.js'
import { tempDir } from './support/temp.js'
import { listedNotes } from './support/listed.js'

const ROOT = resolve(import.meta.dirname, '..')
const lists = { sqlite: sqliteMigrations, postgres: postgresMigrations } as const

type AppliedRows = Array<{ version: number; name: string }>
const named = (list: ReadonlyArray<{ version: number; name: string }>) =>
  list.map(({ version, name }) => ({ version, name }))

describe('one numbering for both dialects', () => {
  it('numbers the changes 1, 2, 3… across both dialects, one name to a number and one number to a name', () => {
    const byNumber = new Map<number, string>()
    for (const m of [...sqliteMigrations, ...postgresMigrations]) {
      assert.equal(byNumber.get(m.version) ?? m.name, m.name, `change ${m.version} has one name in both dialects`)
      byNumber.set(m.version, m.name)
    }
    const numbers = [...byNumber.keys()].sort((a, b) => a - b)
    assert.deepEqual(
      numbers,
      numbers.map((_, i) => i + 1),
    )
    assert.equal(new Set(byNumber.values()).size, byNumber.size)
  })

  for (const dialect of ['sqlite', 'postgres'] as const) {
    it(`${dialect}: the list runs in the sequence's order, one file each, named NNNN-name.ts`, () => {
      const list = lists[dialect]
      assert.deepEqual(
        list.map((m) => m.version),
        list.map((m) => m.version).sort((a, b) => a - b),
      )
      const files = readdirSync(resolve(ROOT, `src/store/${dialect}/migrations`)).sort()
      assert.deepEqual(
        files,
        list.map((m) => `${String(m.version).padStart(4, '0')}-${m.name}.ts`),
      )
    })

    it(`${dialect}: the earlier numbers name this dialect's changes before the last renumbering`, () => {
      for (const name of Object.keys(earlierNumbers[dialect])) {
        assert.ok(
          lists[dialect].some((m) => m.name === name),
          `${name} is a ${dialect} migration`,
        )
      }
    })

    it(`${dialect}: the earlier numbers are the last earlier build's list`, () => {
      assert.deepEqual(
        earlierList(dialect, named(lists[dialect])).map((m) => m.version),
        earlierVersions[dialect],
      )
    })
  }

  it('takes the rows of schema_migrations by name under their earlier numbers, and refuses anything else', () => {
    const earlier = named(earlierList('sqlite', sqliteMigrations))
    assert.deepEqual(
      sharedNumbers('sqlite', earlier, sqliteMigrations),
      named(sqliteMigrations).filter((m) => m.version <= 11),
    )
    assert.deepEqual(sharedNumbers('sqlite', [], sqliteMigrations), [])
    // Only the first rows of an earlier database: still recognised; other fields kept.
    assert.deepEqual(
      sharedNumbers(
        'postgres',
        [
          { version: 1, name: 'init', applied_on: 'a' },
          { version: 6, name: 'nfkc-email-keys', applied_on: 'b' },
        ],
        postgresMigrations,
      ),
      [
        { version: 1, name: 'init', applied_on: 'a' },
        { version: 7, name: 'nfkc-email-keys', applied_on: 'b' },
      ],
    )
    // Neither numbering, a mix of both, or a change this dialect does not have: refused rather than guessed.
    const refused = (dialect: 'sqlite' | 'postgres', rows: AppliedRows, message: RegExp) =>
      assert.throws(() => sharedNumbers(dialect, rows, lists[dialect]), message)
    refused('sqlite', [{ version: 3, name: 'sessions' }], /does not know by those numbers: 3 'sessions'/)
    refused(
      'sqlite',
      [
        { version: 3, name: 'account-usage' },
        { version: 8, name: 'sessions' },
      ],
      /8 'sessions'/,
    )
    refused('sqlite', named(sqliteMigrations), /8 'sessions'/) // the shared numbers are not the earlier ones
    refused('postgres', [{ version: 99, name: 'later' }], /99 'later'/)
    refused('sqlite', [{ version: 13, name: 'drop-account-change-notices' }], /13 'drop-account-change-notices'/)
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
  const snapshot = readFileSync(resolve(ROOT, 'docs/schema/sqlite.sql'), 'utf8')
  const rowsOf = (db: Database, hasSessions: boolean) => ({
    users: db.prepare('SELECT id, full_name, email, email_key, password_hash, created_on FROM users ORDER BY id').all(),
    notes: db
      .prepare('SELECT id, user_id, title, content, tags, is_pinned, created_on, updated_on FROM notes ORDER BY id')
      .all(),
    sessions: hasSessions ? db.prepare('SELECT * FROM sessions ORDER BY id').all() : [],
  })

  for (let k = 1; k <= earlier.length; k++) {
    const last = earlier[k - 1]!
    it(`from version ${last.version} ('${last.name}')`, async () => {
      const dataDir = `${dir.path}/v${last.version}`
      const db = openSqliteDatabase({ dataDir })
      assert.equal(earlierMigrateSqlite(db, earlier.slice(0, k)), k)
      const applied = earlier.slice(0, k).map((m) => m.name)
      for (const u of USERS)
        db.prepare(
          'INSERT INTO users (id, full_name, email, email_key, password_hash, created_on) VALUES (?, ?, ?, ?, ?, ?)',
        ).run(...u)
      for (const [id, user, title, content, tags, pinned, created, updated] of NOTES) {
        db.prepare(
          'INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        ).run(id, user, title, content, JSON.stringify(tags), pinned ? 1 : 0, created, updated)
      }
      if (sessionTable(applied)) {
        for (const s of SESSIONS)
          db.prepare('INSERT INTO sessions (id, user_id, created_on, last_used_on, client) VALUES (?, ?, ?, ?, ?)').run(
            ...s,
          )
      }
      const before = rowsOf(db, sessionTable(applied))
      const written = db
        .prepare('SELECT version, name, applied_on FROM schema_migrations ORDER BY version')
        .all() as Array<{ version: number; name: string; applied_on: string }>
      db.close()

      const store = openSqliteStore({ dataDir }) // the current build: fills schema_changes, then migrates
      assert.deepEqual(
        (await listedNotes(store, 'u1')).map((n) => n._id),
        ['n1', 'n2'],
      )
      await store.close()

      const upgraded = openSqliteDatabase({ dataDir })
      const after = rowsOf(upgraded, true)
      assert.deepEqual(after.users, before.users)
      assert.deepEqual(after.notes, before.notes)
      if (sessionTable(applied)) assert.deepEqual(after.sessions, before.sessions)
      const recorded = upgraded
        .prepare('SELECT number AS version, name, applied_on FROM schema_changes ORDER BY number')
        .all() as typeof written
      assert.deepEqual(named(recorded), named(sqliteMigrations))
      assert.deepEqual(
        recorded.filter((r) => applied.includes(r.name)).map((r) => r.applied_on),
        written.map((r) => r.applied_on),
        'each earlier change keeps when it was applied',
      )
      const migrationsRows = upgraded
        .prepare('SELECT version, name, applied_on FROM schema_migrations ORDER BY version')
        .all() as typeof written
      assert.deepEqual(migrationsRows.slice(0, k), written, "the earlier build's rows, untouched")
      assert.deepEqual(
        named(migrationsRows),
        named(earlier),
        'and the changes applied since, under their earlier numbers',
      )
      const usage = upgraded.prepare('SELECT user_id, notes FROM account_usage ORDER BY user_id').all()
      assert.deepEqual(usage, [
        { user_id: 'u1', notes: 2 },
        { user_id: 'u2', notes: 1 },
        { user_id: 'u3', notes: 0 },
      ])
      assert.equal(upgraded.prepare('SELECT count(*) FROM user_versions').pluck().get(), USERS.length)
      assert.equal(sqliteSchemaText(upgraded), snapshot, 'the upgraded schema is a fresh one')
      assert.equal(migrateSqlite(upgraded), 0, 'nothing left to run')
      // The earlier build, started again on the upgraded database (a rollback), finds all of its
      // migrations applied.
      assert.equal(earlierMigrateSqlite(upgraded, earlier), 0)
      const versions = upgraded.prepare('SELECT version FROM schema_migrations').pluck().all()
      for (const v of earlierVersions.sqlite) assert.ok(versions.includes(v), `schema_migrations records ${v}`)
      upgraded.close()
    })
  }

  it('a fresh database: the earlier build finds nothing to run either', () => {
    const db = openSqliteDatabase({ dataDir: `${dir.path}/fresh` })
    assert.equal(migrateSqlite(db), sqliteMigrations.length)
    assert.deepEqual(
      db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all(),
      earlierVersions.sqlite,
    )
    assert.equal(earlierMigrateSqlite(db, earlier), 0)
    assert.equal(migrateSqlite(db), 0)
    db.close()
  })

  it('an earlier build migrating after the current one filled schema_changes: its changes are taken, not run again', () => {
    const db = openSqliteDatabase({ dataDir: `${dir.path}/interleaved` })
    // The current build has filled schema_changes and applied changes 1 and 2 when an earlier
    // build, started at the same moment, applies the rest of its list.
    assert.equal(migrateSqlite(db, sqliteMigrations.slice(0, 2)), 2)
    assert.equal(earlierMigrateSqlite(db, earlier), earlier.length - 2)
    const unknownToEarlierBuilds = sqliteMigrations.filter((m) => earlierNumbers.sqlite[m.name] === undefined)
    assert.equal(migrateSqlite(db), unknownToEarlierBuilds.length, 'only the changes no earlier build has')
    const recorded = db.prepare('SELECT number AS version, name FROM schema_changes ORDER BY number').all()
    assert.deepEqual(recorded, named(sqliteMigrations))
    assert.equal(sqliteSchemaText(db), snapshot)
    db.close()
  })

  it('refuses a schema_migrations that does not match the earlier numbers', () => {
    const db = openSqliteDatabase({ dataDir: `${dir.path}/mixed` })
    earlierMigrateSqlite(db, earlier.slice(0, 3))
    db.prepare("UPDATE schema_migrations SET version = 6 WHERE name = 'account-usage'").run()
    assert.throws(() => migrateSqlite(db), /does not know by those numbers: 6 'account-usage'/)
    assert.equal(
      db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'schema_changes'").get(),
      undefined,
      'nothing is left half done',
    )
    db.close()
  })
})

if (serviceAvailable('postgresql')) {
  describe('postgresql: a database of every earlier version upgrades, keeping every row', () => {
    const databases: TestDatabase[] = []
    after(async () => {
      await Promise.all(databases.map((d) => d.drop()))
    })
    const earlier = earlierList('postgres', postgresMigrations)
    const snapshot = readFileSync(resolve(ROOT, 'docs/schema/postgresql.sql'), 'utf8')
    const rowsOf = async (client: pg.Client, hasSessions: boolean) => ({
      users: (
        await client.query('SELECT id, full_name, email, email_key, password_hash, created_on FROM users ORDER BY id')
      ).rows,
      notes: (
        await client.query(
          'SELECT id, user_id, title, content, tags, is_pinned, created_on, updated_on FROM notes ORDER BY id',
        )
      ).rows,
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
        await writer.query(
          "INSERT INTO users VALUES ('u1', 'A', 'a@example.com', 'a@example.com', 'h', '2026-01-01T00:00:00.000Z')",
        )
        await writer.query("UPDATE users SET full_name = 'B' WHERE id = 'u1'")
        await writer.query("DELETE FROM users WHERE id = 'u1'")
        await writer.query('TRUNCATE users CASCADE')
        // A notice of the listener's own, sent last, arrives after every earlier one.
        await writer.query("SELECT pg_notify('notes_service_account_versions', 'done')")
        for (let i = 0; i < 100 && !heard.includes('notes_service_account_versions done'); i++)
          await new Promise((r) => setTimeout(r, 20))
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
        const applied = earlier.slice(0, k).map((m) => m.name)
        const client = new pg.Client({ connectionString: db.url })
        await client.connect()
        try {
          assert.equal(await earlierMigratePostgres(client, earlier.slice(0, k)), k)
          for (const u of USERS)
            await client.query(
              'INSERT INTO users (id, full_name, email, email_key, password_hash, created_on) VALUES ($1, $2, $3, $4, $5, $6)',
              [...u],
            )
          for (const n of NOTES) {
            await client.query(
              'INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
              [...n],
            )
          }
          if (sessionTable(applied)) {
            for (const s of SESSIONS)
              await client.query(
                'INSERT INTO sessions (id, user_id, created_on, last_used_on, client) VALUES ($1, $2, $3, $4, $5)',
                [...s],
              )
          }
          const before = await rowsOf(client, sessionTable(applied))
          type Row = { version: number; name: string; applied_on: string }
          const written = (
            await client.query<Row>('SELECT version, name, applied_on FROM schema_migrations ORDER BY version')
          ).rows

          assert.equal(await migrateDatabase({ url: db.url }), postgresMigrations.length - k)

          const after = await rowsOf(client, true)
          assert.deepEqual(after.users, before.users)
          assert.deepEqual(after.notes, before.notes)
          if (sessionTable(applied)) assert.deepEqual(after.sessions, before.sessions)
          const recorded = (
            await client.query<Row>('SELECT number AS version, name, applied_on FROM schema_changes ORDER BY number')
          ).rows
          assert.deepEqual(named(recorded), named(postgresMigrations))
          assert.deepEqual(
            recorded.filter((r) => applied.includes(r.name)).map((r) => r.applied_on),
            written.map((r) => r.applied_on),
            'each earlier change keeps when it was applied',
          )
          const migrationsRows = (
            await client.query<Row>('SELECT version, name, applied_on FROM schema_migrations ORDER BY version')
          ).rows
          assert.deepEqual(migrationsRows.slice(0, k), written, "the earlier build's rows, untouched")
          assert.deepEqual(
            named(migrationsRows),
            named(earlier),
            'and the changes applied since, under their earlier numbers',
          )
          const usage = (
            await client.query(
              'SELECT user_id, sum(notes)::int AS notes FROM account_usage GROUP BY user_id ORDER BY user_id',
            )
          ).rows
          assert.deepEqual(usage, [
            { user_id: 'u1', notes: 2 },
            { user_id: 'u2', notes: 1 },
          ])
          assert.equal(
            (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM account_versions')).rows[0]!.n,
            USERS.length,
          )
          assert.equal(await postgresSchemaText(client), snapshot, 'the upgraded schema is a fresh one')
          assert.equal(await migrateDatabase({ url: db.url }), 0, 'nothing left to run')
          // An instance of the earlier build, started again on the upgraded database (a rollback,
          // or one not yet upgraded restarting), finds all of its migrations applied: the NFKC
          // email keys (its 6) do not run again.
          assert.equal(await earlierMigratePostgres(client, earlier), 0)
          const versions = (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map(
            (r) => r.version,
          )
          for (const v of earlierVersions.postgres) assert.ok(versions.includes(v), `schema_migrations records ${v}`)
        } finally {
          await client.end()
        }
      })
    }

    const withDatabase = async (test: (client: pg.Client, url: string) => Promise<void>) => {
      const db = await createTestDatabase()
      databases.push(db)
      const client = new pg.Client({ connectionString: db.url })
      await client.connect()
      try {
        await test(client, db.url)
      } finally {
        await client.end()
      }
    }

    it('a fresh database: the earlier build finds nothing to run either', () =>
      withDatabase(async (client, url) => {
        assert.equal(await migrateDatabase({ url }), postgresMigrations.length)
        const versions = (
          await client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')
        ).rows.map((r) => r.version)
        assert.deepEqual(versions, earlierVersions.postgres)
        assert.equal(await earlierMigratePostgres(client, earlier), 0)
        assert.equal(await migratePostgres(client), 0)
      }))

    it('instances of both builds starting at once: each migration runs once', () =>
      withDatabase(async (_, url) => {
        const others = await Promise.all(
          [0, 1].map(async () => {
            const c = new pg.Client({ connectionString: url })
            await c.connect()
            return c
          }),
        )
        try {
          const [a, b, c] = await Promise.all([
            earlierMigratePostgres(others[0]!, earlier),
            migrateDatabase({ url }),
            earlierMigratePostgres(others[1]!, earlier),
          ])
          // Whichever takes the lock first, every change runs once: the earlier build's eight (by
          // either build) and change 13 (by the current one).
          assert.equal(a + b + c, postgresMigrations.length, `${a} + ${b} + ${c}`)
          assert.equal(await migrateDatabase({ url }), 0)
        } finally {
          await Promise.all(others.map((c) => c.end()))
        }
      }))

    it('refuses a schema_migrations that matches neither numbering', () =>
      withDatabase(async (client, url) => {
        await earlierMigratePostgres(client, earlier.slice(0, 2))
        await client.query("UPDATE schema_migrations SET version = 7 WHERE name = 'note-json'")
        await assert.rejects(migrateDatabase({ url }), /does not know by those numbers: 7 'note-json'/)
        assert.equal(
          (await client.query<{ t: string | null }>("SELECT to_regclass('schema_changes') AS t")).rows[0]!.t,
          null,
          'nothing is left half done',
        )
      }))
  })
}
