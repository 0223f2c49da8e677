// The builds before the shared migration numbers (src/store/migrations.ts), as far as migrating
// goes: their lists (the same changes and SQL under the numbers each dialect had then) and their
// migration routines, copied from the last such commit (git show
// 7e6f803:src/store/sqlite/index.ts, migrateSqlite; 7e6f803:src/store/postgres/index.ts,
// migratePostgres) with nothing changed but names and types. The tests make old databases with
// them, and run them after the current build to check that an earlier build started again on the
// same database (a rollback, an instance not yet upgraded) finds nothing to run.
import type { Database } from 'better-sqlite3'
import type pg from 'pg'
import { earlierNumbers } from '../../src/store/migrations.js'
import type { Migration as PostgresMigration } from '../../src/store/postgres/migrations.js'
import type { Migration as SqliteMigration } from '../../src/store/sqlite/migrations.js'

/** The versions the last earlier build's lists had, in order. */
export const earlierVersions = { sqlite: [1, 2, 3, 4, 7, 8, 9], postgres: [1, 2, 3, 4, 5, 6, 9, 10] } as const

/** A dialect's list as the builds before the shared numbering had it: same changes, their numbers. */
export function earlierList<M extends { version: number; name: string }>(
  dialect: 'sqlite' | 'postgres',
  list: readonly M[],
): M[] {
  const numbers = earlierNumbers[dialect]
  return list
    .filter((m) => numbers[m.name] !== undefined)
    .map((m) => ({ ...m, version: numbers[m.name]! }))
    .sort((a, b) => a.version - b.version)
}

/** migrateSqlite of the earlier builds. */
export function earlierMigrateSqlite(db: Database, list: readonly SqliteMigration[]): number {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_on TEXT NOT NULL)`)
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[])
  let count = 0
  for (const m of list) {
    if (applied.has(m.version)) continue
    // IMMEDIATE takes the write lock first, so two processes starting together serialise here.
    db.transaction(() => {
      const again = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version)
      if (again) return
      if (m.sql) db.exec(m.sql)
      m.run?.(db)
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, new Date().toISOString())
      count++
    }).immediate()
  }
  return count
}

/** The earlier builds' advisory lock key, the current one's too. */
const MIGRATION_LOCK = 4_711_020_301

/** migratePostgres of the earlier builds. */
export async function earlierMigratePostgres(
  client: pg.ClientBase,
  list: readonly PostgresMigration[],
): Promise<number> {
  let count = 0
  try {
    await client.query('BEGIN')
    // Waiting for another instance's migration, or a long one, is not a slow request.
    await client.query('SET LOCAL statement_timeout = 0')
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_on text NOT NULL)`)
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations')
    const applied = new Set(rows.map((r) => r.version))
    for (const m of list) {
      if (applied.has(m.version)) continue
      if (m.sql) await client.query(m.sql)
      await m.run?.(client)
      await client.query('INSERT INTO schema_migrations VALUES ($1, $2, $3)', [
        m.version,
        m.name,
        new Date().toISOString(),
      ])
      count++
    }
    await client.query('COMMIT')
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {})
    throw err
  }
  return count
}
