// The SQLite driver's migrations, numbered as ../migrations.ts says; each runs once, in order, in a
// transaction (migrateSqlite in migrate.ts, over store/migrate.ts). Never edit a released migration: add one.
import type { SqliteMigration } from '../migrations.js'
import { migration as m0001 } from './migrations/0001-init.js'
import { migration as m0002 } from './migrations/0002-note-json.js'
import { migration as m0005 } from './migrations/0005-account-usage.js'
import { migration as m0006 } from './migrations/0006-well-formed-text.js'
import { migration as m0008 } from './migrations/0008-sessions.js'
import { migration as m0009 } from './migrations/0009-user-versions.js'
import { migration as m0011 } from './migrations/0011-version-clock-moves-on-account-removal.js'
import { migration as m0012 } from './migrations/0012-account-usage-without-octet-length.js'
import { migration as m0014 } from './migrations/0014-trash-and-history.js'
import { migration as m0015 } from './migrations/0015-change-feed.js'
import { migration as m0016 } from './migrations/0016-search-index.js'
import { migration as m0017 } from './migrations/0017-feed-position-in-note.js'
import { migration as m0018 } from './migrations/0018-attachments.js'

export type Migration = SqliteMigration

export const migrations: readonly Migration[] = [
  m0001,
  m0002,
  m0005,
  m0006,
  m0008,
  m0009,
  m0011,
  m0012,
  m0014,
  m0015,
  m0016,
  m0017,
  m0018,
]
