// SQLite's adapter of the migration runner (store/migrate.ts): each step in an IMMEDIATE transaction, which takes the
// write lock first, so that two processes starting together serialise.
import type { Database } from 'better-sqlite3'
import { type MigrationAdapter, migrationRun, runNow } from '../migrate.js'
import type { RecordedRow } from '../migrations.js'
import { type Migration, migrations } from './migrations.js'

function sqliteAdapter(db: Database): MigrationAdapter<Migration> {
  const hasChanges = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_changes'")
  return {
    dialect: 'sqlite',
    migrations,
    createEarlierTable: () =>
      void db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_on TEXT NOT NULL)`),
    hasChangesTable: () => hasChanges.get() !== undefined,
    createChangesTable: () =>
      void db.exec(`CREATE TABLE schema_changes (
      number INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_on TEXT NOT NULL)`),
    earlierRows: () => db.prepare<[], RecordedRow>('SELECT version, name, applied_on FROM schema_migrations').all(),
    appliedNumbers: () => db.prepare<[], number>('SELECT number FROM schema_changes').pluck().all(),
    earlierAppliedOn: (version, name) =>
      db
        .prepare<[number, string], string>('SELECT applied_on FROM schema_migrations WHERE version = ? AND name = ?')
        .pluck()
        .get(version, name),
    record: (table, row) => {
      const insert =
        table === 'schema_changes' ? 'INSERT INTO schema_changes' : 'INSERT OR IGNORE INTO schema_migrations'
      db.prepare(`${insert} VALUES (?, ?, ?)`).run(row.version, row.name, row.applied_on)
    },
    apply: (m) => {
      if (m.sql) db.exec(m.sql)
      m.run?.(db)
    },
    begin: () => void db.exec('BEGIN IMMEDIATE'),
    commit: () => void db.exec('COMMIT'),
    rollback: () => {
      // SQLite may have rolled back by itself after some errors.
      if (db.inTransaction) db.exec('ROLLBACK')
    },
  }
}

/** Applies every migration schema_changes does not record; returns how many ran (docs/architecture.md, "Migrations"). */
export function migrateSqlite(db: Database, list: readonly Migration[] = migrations): number {
  return runNow(migrationRun(sqliteAdapter(db), list))
}
