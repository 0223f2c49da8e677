// The SQLite driver's migrations: one file per change in migrations/, NNNN-name.ts, numbered by
// the sequence both drivers share (../migrations.ts); a change SQLite does not need has no file
// here. Each runs once, in order, inside a transaction, and is recorded in schema_changes (and,
// if it had a number before the shared ones, under that number in schema_migrations too:
// migrateSqlite in index.ts).
// Never edit a released migration: add one.
import type { Database } from 'better-sqlite3'
import { migration as m0001 } from './migrations/0001-init.js'
import { migration as m0002 } from './migrations/0002-note-json.js'
import { migration as m0005 } from './migrations/0005-account-usage.js'
import { migration as m0006 } from './migrations/0006-well-formed-text.js'
import { migration as m0008 } from './migrations/0008-sessions.js'
import { migration as m0009 } from './migrations/0009-user-versions.js'
import { migration as m0011 } from './migrations/0011-version-clock-moves-on-account-removal.js'
import { migration as m0012 } from './migrations/0012-account-usage-without-octet-length.js'

export interface Migration {
  version: number
  name: string
  /** Run first. */
  sql?: string
  /** What SQL cannot do (Unicode normalisation, say), run after `sql` in the same transaction. */
  run?: (db: Database) => void
}

export const migrations: readonly Migration[] = [m0001, m0002, m0005, m0006, m0008, m0009, m0011, m0012]
