// Both drivers number their schema changes in one sequence: the same number and name in
// sqlite/migrations/ and postgres/migrations/, no file where a dialect needs none, a number never
// reused, a released change never edited (docs/architecture.md, "Migrations").
import type { Database } from 'better-sqlite3'
import type pg from 'pg'

/** The numbers each dialect gave its changes before the shared sequence, which earlier builds still run by. */
export const earlierNumbers: Readonly<Record<'sqlite' | 'postgres', Readonly<Record<string, number>>>> = {
  sqlite: {
    init: 1,
    'note-json': 2,
    'account-usage': 3,
    'well-formed-text': 4,
    sessions: 7,
    'user-versions': 8,
    'version-clock-moves-on-account-removal': 9,
  },
  postgres: {
    init: 1,
    'note-json': 2,
    'account-change-notices': 3,
    'note-versions': 4,
    'account-usage': 5,
    'nfkc-email-keys': 6,
    sessions: 9,
    'account-versions': 10,
  },
}

export interface AppliedRow {
  version: number
  name: string
}

/** A row of schema_migrations. */
export type RecordedRow = AppliedRow & { applied_on: string }

/** One change of a dialect: `sql` first, then `run` (what SQL cannot do, Unicode rules say) in the same transaction. */
export interface DialectMigration<Db, Done> extends AppliedRow {
  sql?: string
  run?: (db: Db) => Done
}

/** A change of SQLite's (src/store/sqlite/migrations/). */
export type SqliteMigration = DialectMigration<Database, void>
/** A change of PostgreSQL's (src/store/postgres/migrations/). */
export type PostgresMigration = DialectMigration<pg.ClientBase, Promise<void>>

/**
 * schema_migrations' rows under their shared numbers (`list`: the dialect's migrations), to fill a new
 * schema_changes. A row not naming a change under its earlier number is an error, not a guess.
 */
export function sharedNumbers<R extends AppliedRow>(
  dialect: 'sqlite' | 'postgres',
  rows: readonly R[],
  list: readonly AppliedRow[],
): R[] {
  const shared = new Map(list.map((m) => [m.name, m.version]))
  const earlier = earlierNumbers[dialect]
  const odd = rows.filter((r) => earlier[r.name] !== r.version || !shared.has(r.name))
  if (odd.length > 0) {
    const named = odd.map((r) => `${r.version} '${r.name}'`)
    throw new Error(
      `schema_migrations records migrations this build does not know by those numbers: ${named.join(', ')}`,
    )
  }
  return rows.map((r) => ({ ...r, version: shared.get(r.name)! })).sort((a, b) => a.version - b.version)
}
