// Each dialect's snapshot in docs/schema/ is the schema every migration gives an empty database. A change to
// the migrations that changes the schema changes the snapshot too, in the same commit, so the
// snapshot is what a reader opens to see the tables as they are. To write the snapshots again:
//   UPDATE_SCHEMA_SNAPSHOT=1 node --import tsx --test test/schema-snapshot.test.ts
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, it } from 'node:test'
import pg from 'pg'
import { migratePostgres } from '../src/store/postgres/index.js'
import { migrateSqlite, openSqliteDatabase } from '../src/store/sqlite/index.js'
import { postgresSchemaText, sqliteSchemaText } from './support/schema-text.js'
import { createTestDatabase, serviceAvailable } from './support/services.js'

const ROOT = resolve(import.meta.dirname, '..')
const SQLITE_SNAPSHOT = resolve(ROOT, 'docs/schema/sqlite.sql')
const POSTGRES_SNAPSHOT = resolve(ROOT, 'docs/schema/postgresql.sql')
const HOW = 'to write it again: UPDATE_SCHEMA_SNAPSHOT=1 node --import tsx --test test/schema-snapshot.test.ts'

function compare(file: string, actual: string): void {
  if (process.env.UPDATE_SCHEMA_SNAPSHOT === '1') {
    writeFileSync(file, actual)
    return
  }
  const expected = readFileSync(file, 'utf8')
  assert.equal(
    actual,
    expected,
    `${file} is not the schema the migrations give a fresh database (the diff above); ${HOW}`,
  )
}

describe('schema snapshots', () => {
  it('docs/schema/sqlite.sql is the schema of a fresh SQLite database', () => {
    const db = openSqliteDatabase({ dataDir: ':memory:' })
    migrateSqlite(db)
    compare(SQLITE_SNAPSHOT, sqliteSchemaText(db))
    db.close()
  })

  if (serviceAvailable('postgresql')) {
    it('docs/schema/postgresql.sql is the schema of a fresh PostgreSQL database', async () => {
      const db = await createTestDatabase()
      const client = new pg.Client({ connectionString: db.url })
      try {
        await client.connect()
        await migratePostgres(client)
        compare(POSTGRES_SNAPSHOT, await postgresSchemaText(client))
      } finally {
        await client.end()
        await db.drop()
      }
    })
  }
})
