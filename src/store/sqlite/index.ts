// The embedded store: SQLite through better-sqlite3, in WAL mode; with synchronous=FULL (the default) a write is on
// disk, safe from a power cut, before it is acknowledged. Its sections, each in the file of its name, wired over one
// connection and its group-commit writer.
import { chmodSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { StoreDriver, UserVersions } from '../driver.js'
import { DEFAULT_LIMITS, type StoreLimits } from '../limits.js'
import { actorCheck, sqliteAccounts } from './accounts.js'
import { sqliteAttachments } from './attachments.js'
import { sqliteFeed } from './feed.js'
import { FreeSpaceGuard, type FreeSpaceReader, statfsReader } from './free-space.js'
import { GroupCommitWriter, type Writes } from './group-commit.js'
import { migrateSqlite } from './migrate.js'
import { sqliteNotes } from './notes.js'
import { SqliteQuota } from './quota.js'
import { sqliteSearch } from './search.js'
import { sqliteSessions } from './sessions.js'
import { sqliteTransfer } from './transfer.js'
import { SqliteTrashHistory } from './trash-history.js'

export { migrateSqlite } from './migrate.js'

export interface SqliteOptions {
  /** Directory holding notes.db; created when missing. ':memory:' keeps everything in memory. */
  dataDir: string
  synchronous?: 'FULL' | 'NORMAL'
  /** Writes that add data are refused (LowDiskSpaceError) below this much free space (free-space.ts); 0 or absent: never. */
  minFreeDiskBytes?: number
  /** Where the free space is read from: statfs of `dataDir` unless given. */
  freeSpace?: FreeSpaceReader
}

/** What the store is opened with: the database's, and the limits that hold for as long as it is open. */
export interface SqliteStoreOptions extends SqliteOptions {
  /** DEFAULT_LIMITS unless given. */
  limits?: StoreLimits
}

export const SQLITE_FILE = 'notes.db'

export function openSqliteDatabase(options: SqliteOptions): Database.Database {
  let file = ':memory:'
  if (options.dataDir !== ':memory:') {
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 })
    file = join(options.dataDir, SQLITE_FILE)
  }
  const db = new Database(file)
  // The database holds password hashes: owner-only. SQLite gives -wal and -shm the same permissions.
  if (file !== ':memory:') chmodSync(file, 0o600)
  db.pragma('journal_mode = WAL')
  db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`)
  db.pragma('foreign_keys = ON')
  // Several worker processes may share the file: wait for the write lock instead of failing.
  db.pragma('busy_timeout = 5000')
  return db
}

/** A group-commit writer over one connection; IMMEDIATE takes the write lock at BEGIN. */
export function sqliteGroupCommit(db: Database.Database): GroupCommitWriter {
  const begin = db.prepare('BEGIN IMMEDIATE')
  const commit = db.prepare('COMMIT')
  const rollback = db.prepare('ROLLBACK')
  return new GroupCommitWriter({
    begin: () => void begin.run(),
    commit: () => void commit.run(),
    rollback: () => void rollback.run(),
    inTransaction: () => db.inTransaction,
  })
}

export function openSqliteStore(options: SqliteStoreOptions): StoreDriver {
  const limits = options.limits ?? DEFAULT_LIMITS
  const db = openSqliteDatabase(options)
  migrateSqlite(db)
  const writer = sqliteGroupCommit(db)
  const min = options.minFreeDiskBytes ?? 0
  const readFree = options.freeSpace ?? (options.dataDir === ':memory:' ? undefined : statfsReader(options.dataDir))
  const disk = min > 0 && readFree ? new FreeSpaceGuard(min, readFree) : undefined
  const writes: Writes = {
    write: (run) => writer.write(run),
    adding: (run) => (disk ? disk.check().then(() => writer.write(run)) : writer.write(run)),
  }
  const assertAdmitted = actorCheck(db)
  const trashHistory = new SqliteTrashHistory(db, limits)
  const { insertNow, ...notes } = sqliteNotes(db, writes, new SqliteQuota(db, limits.quota), trashHistory)
  // One statement, so one read lock, for all the users the cache layer asks about in a turn.
  type VersionRow = { user_id: string; notes: number; account: number }
  const versionsOfOne = db.prepare<[string], VersionRow>(
    'SELECT user_id, notes, account FROM user_versions WHERE user_id = ?',
  )
  const versionsOfMany = db.prepare<[string], VersionRow>(
    'SELECT user_id, notes, account FROM user_versions WHERE user_id IN (SELECT value FROM json_each(?))',
  )
  const clock = db.prepare<[], number>('SELECT now FROM version_clock').pluck()
  return {
    ...sqliteAccounts(db, writes, assertAdmitted),
    ...sqliteSessions(db, writes, assertAdmitted),
    ...notes,
    ...trashHistory.store(writes, insertNow),
    ...sqliteFeed(db),
    ...sqliteSearch(db, writes),
    ...sqliteAttachments(db, writes, limits),
    ...sqliteTransfer(db, limits.quota),
    userVersions: async (userIds) => {
      const found = new Map<string, UserVersions>()
      const rows = userIds.length === 1 ? versionsOfOne.all(userIds[0]!) : versionsOfMany.all(JSON.stringify(userIds))
      for (const row of rows) found.set(row.user_id, { notes: String(row.notes), account: String(row.account) })
      return found
    },
    versionClock: async () => String(clock.get()),
    ping: async () => void db.prepare('SELECT 1').get(),
    close: async () => {
      if (!db.open) return
      writer.flush() // commit (and settle) every write still queued
      db.close()
    },
  }
}
