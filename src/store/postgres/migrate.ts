// PostgreSQL's adapter of the migration runner (store/migrate.ts): the whole run is one transaction under an advisory
// lock, so however many instances start, one migrates and the others find it done.
import type pg from 'pg'
import { StoreUnavailableError } from '../errors.js'
import { type MigrationAdapter, migrationRun, runAwaiting } from '../migrate.js'
import type { RecordedRow } from '../migrations.js'
import { type Migration, migrations } from './migrations.js'
import { type PostgresOptions, describeDatabase, ownClient } from './pool.js'
import { isUnavailable, transaction } from './query.js'

/** The key of the migration's advisory lock, the same in every instance and earlier build. */
const MIGRATION_LOCK = 4_711_020_301

function postgresAdapter(client: pg.ClientBase): MigrationAdapter<Migration> {
  const run = async (sql: string, values: unknown[] = []) => void (await client.query(sql, values))
  const inOneTransaction = async () => {}
  return {
    dialect: 'postgres',
    migrations,
    createEarlierTable: () =>
      run(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_on text NOT NULL)`),
    hasChangesTable: async () =>
      (await client.query<{ exists: boolean }>("SELECT to_regclass('schema_changes') IS NOT NULL AS exists")).rows[0]!
        .exists,
    createChangesTable: () =>
      run(`CREATE TABLE schema_changes (
        number integer PRIMARY KEY, name text NOT NULL, applied_on text NOT NULL)`),
    earlierRows: async () =>
      (await client.query<RecordedRow>('SELECT version, name, applied_on FROM schema_migrations')).rows,
    appliedNumbers: async () =>
      (await client.query<{ number: number }>('SELECT number FROM schema_changes')).rows.map((r) => r.number),
    earlierAppliedOn: async (version, name) =>
      (
        await client.query<{ applied_on: string }>(
          'SELECT applied_on FROM schema_migrations WHERE version = $1 AND name = $2',
          [version, name],
        )
      ).rows[0]?.applied_on,
    record: (table, row) =>
      run(
        table === 'schema_changes'
          ? 'INSERT INTO schema_changes VALUES ($1, $2, $3)'
          : 'INSERT INTO schema_migrations VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [row.version, row.name, row.applied_on],
      ),
    apply: async (m) => {
      if (m.sql) await client.query(m.sql)
      await m.run?.(client)
    },
    begin: inOneTransaction,
    commit: inOneTransaction,
    rollback: inOneTransaction,
  }
}

/** Applies the migrations schema_changes lacks, once however many instances start (advisory lock); returns how many ran. */
export function migratePostgres(client: pg.ClientBase, list: readonly Migration[] = migrations): Promise<number> {
  return transaction(client, async () => {
    // Waiting for another instance's migration, or a long one, is not a slow request.
    await client.query('SET LOCAL statement_timeout = 0')
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
    return runAwaiting(migrationRun(postgresAdapter(client), list))
  })
}

/** Migrates over its own connection, without the pool's timeouts; rejects with one line naming the database, not its password. */
export async function migrateDatabase(
  options: PostgresOptions,
  list: readonly Migration[] = migrations,
): Promise<number> {
  const client = ownClient(options, 'notes-service migrate')
  try {
    await client.connect()
    return await migratePostgres(client, list)
  } catch (err) {
    const where = describeDatabase(options.url)
    const why = err instanceof Error ? err.message || (err as { code?: string }).code || err.name : String(err)
    if (isUnavailable(err))
      throw new StoreUnavailableError(`cannot reach PostgreSQL at ${where}: ${why}`, { cause: err })
    throw new Error(`PostgreSQL at ${where}: ${why}`, { cause: err })
  } finally {
    await client.end().catch(() => {})
  }
}
