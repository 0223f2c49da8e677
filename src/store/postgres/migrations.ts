// The PostgreSQL driver's migrations (mirrors sqlite/migrations.ts), all run in one transaction
// under an advisory lock (migratePostgres in migrate.ts, over store/migrate.ts). Never edit a released migration: add one.
import type { PostgresMigration } from '../migrations.js'
import { migration as m0001 } from './migrations/0001-init.js'
import { migration as m0002 } from './migrations/0002-note-json.js'
import { migration as m0003 } from './migrations/0003-account-change-notices.js'
import { migration as m0004 } from './migrations/0004-note-versions.js'
import { migration as m0005 } from './migrations/0005-account-usage.js'
import { migration as m0007 } from './migrations/0007-nfkc-email-keys.js'
import { migration as m0008 } from './migrations/0008-sessions.js'
import { migration as m0010 } from './migrations/0010-account-versions.js'
import { migration as m0013 } from './migrations/0013-drop-account-change-notices.js'
import { migration as m0014 } from './migrations/0014-trash-and-history.js'
import { migration as m0015 } from './migrations/0015-change-feed.js'
import { migration as m0017 } from './migrations/0017-feed-position-in-note.js'
import { migration as m0018 } from './migrations/0018-attachments.js'

export type Migration = PostgresMigration

export const migrations: readonly Migration[] = [
  m0001,
  m0002,
  m0003,
  m0004,
  m0005,
  m0007,
  m0008,
  m0010,
  m0013,
  m0014,
  m0015,
  m0017,
  m0018,
]
