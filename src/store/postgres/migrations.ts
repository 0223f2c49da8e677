// The PostgreSQL driver's migrations (mirrors sqlite/migrations.ts): one file per change in
// migrations/, NNNN-name.ts, numbered by the sequence both drivers share (../migrations.ts); a
// change PostgreSQL does not need has no file here. Each runs once, in order, inside the one
// transaction that holds the migration advisory lock, and is recorded in schema_changes (and,
// if it had a number before the shared ones, under that number in schema_migrations too:
// migratePostgres in index.ts).
// Never edit a released migration: add one.
import type pg from 'pg'
import { migration as m0001 } from './migrations/0001-init.js'
import { migration as m0002 } from './migrations/0002-note-json.js'
import { migration as m0003 } from './migrations/0003-account-change-notices.js'
import { migration as m0004 } from './migrations/0004-note-versions.js'
import { migration as m0005 } from './migrations/0005-account-usage.js'
import { migration as m0007 } from './migrations/0007-nfkc-email-keys.js'
import { migration as m0008 } from './migrations/0008-sessions.js'
import { migration as m0010 } from './migrations/0010-account-versions.js'
import { migration as m0013 } from './migrations/0013-drop-account-change-notices.js'

export interface Migration {
  version: number
  name: string
  /** Run first. */
  sql?: string
  /** What SQL cannot do (JavaScript's Unicode rules, say), run after `sql` in the same transaction. */
  run?: (client: pg.ClientBase) => Promise<void>
}

export const migrations: readonly Migration[] = [m0001, m0002, m0003, m0004, m0005, m0007, m0008, m0010, m0013]
