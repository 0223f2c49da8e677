// The embedded store: SQLite through better-sqlite3, in WAL mode; with synchronous=FULL (the
// default) a write is on disk, safe from a power cut, before it is acknowledged.
import { chmodSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { type RecordedRow, earlierNumbers, sharedNumbers } from '../migrations.js'
import type { StoreDriver, UserVersions } from '../types.js'
import { FreeSpaceGuard, type FreeSpaceReader, statfsReader } from './free-space.js'
import { GroupCommitWriter } from './group-commit.js'
import { type Migration, migrations } from './migrations.js'
import { SqliteFeed } from './feed.js'
import { SqliteKept } from './kept.js'
import { SqliteNotes } from './notes.js'
import { SqliteSearch } from './search.js'
import { sqliteQuota } from './quota.js'
import { sqliteSessions } from './sessions.js'
import { sqliteTransfer } from './transfer.js'
import { actorCheck, sqliteUsers } from './users.js'

export interface SqliteOptions {
  /** Directory holding notes.db; created when missing. ':memory:' keeps everything in memory. */
  dataDir: string
  synchronous?: 'FULL' | 'NORMAL'
  /** Writes that add data are refused (LowDiskSpaceError) below this much free space (free-space.ts); 0 or absent: never. */
  minFreeDiskBytes?: number
  /** Where the free space is read from: statfs of `dataDir` unless given. */
  freeSpace?: FreeSpaceReader
}

/** Writes resolve once their group commit is on disk; `adding` (data) waits first for the disk to have room (free-space.ts). */
export type Writes = Record<'write' | 'adding', GroupCommitWriter['write']>

export const SQLITE_FILE = 'notes.db'

/** Applies every migration schema_changes does not record; returns how many ran (docs/architecture.md, "Migrations"). */
export function migrateSqlite(db: Database.Database, list: readonly Migration[] = migrations): number {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_on TEXT NOT NULL)`)
  const hasSchemaChanges = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_changes'")
  // Filled from schema_migrations (sharedNumbers) under the write lock, checking again: one process fills it.
  if (hasSchemaChanges.get() === undefined) {
    db.transaction(() => {
      if (hasSchemaChanges.get() !== undefined) return
      const rows = db.prepare<[], RecordedRow>('SELECT version, name, applied_on FROM schema_migrations').all()
      db.exec(`CREATE TABLE schema_changes (
      number INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_on TEXT NOT NULL)`)
      const insert = db.prepare('INSERT INTO schema_changes VALUES (?, ?, ?)')
      for (const r of sharedNumbers('sqlite', rows, migrations)) insert.run(r.version, r.name, r.applied_on)
    }).immediate()
  }
  const applied = new Set(db.prepare('SELECT number FROM schema_changes').pluck().all() as number[])
  const recordedBefore = db.prepare<[number, string], string>('SELECT applied_on FROM schema_migrations WHERE version = ? AND name = ?').pluck()
  const record = db.prepare('INSERT INTO schema_changes VALUES (?, ?, ?)')
  let count = 0
  for (const m of list) {
    if (applied.has(m.version)) continue
    const earlier = earlierNumbers.sqlite[m.name]
    // IMMEDIATE takes the write lock first, so two processes starting together serialise here.
    db.transaction(() => {
      if (db.prepare('SELECT 1 FROM schema_changes WHERE number = ?').get(m.version)) return
      // An earlier build, starting at the same moment, applied it since the fill.
      const since = earlier === undefined ? undefined : recordedBefore.get(earlier, m.name)
      if (since !== undefined) {
        record.run(m.version, m.name, since)
        return
      }
      if (m.sql) db.exec(m.sql)
      m.run?.(db)
      const now = new Date().toISOString()
      record.run(m.version, m.name, now)
      if (earlier !== undefined) db.prepare('INSERT OR IGNORE INTO schema_migrations VALUES (?, ?, ?)').run(earlier, m.name, now)
      count++
    }).immediate()
  }
  return count
}

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

export function openSqliteStore(options: SqliteOptions): StoreDriver {
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
  const notes = new SqliteNotes(db)
  const search = new SqliteSearch(db)
  const kept = new SqliteKept(db)
  const { insertNow, ...noteWrites } = sqliteQuota(db, writes, notes, kept)
  const { sweepKept, ...keptMethods } = kept.methods(writes, insertNow)
  const feed = new SqliteFeed(db)
  // One statement, so one read lock, for all the users the cache layer asks about in a turn.
  type VersionRow = { user_id: string; notes: number; account: number }
  const versionsOfOne = db.prepare<[string], VersionRow>('SELECT user_id, notes, account FROM user_versions WHERE user_id = ?')
  const versionsOfMany = db.prepare<[string], VersionRow>(
    'SELECT user_id, notes, account FROM user_versions WHERE user_id IN (SELECT value FROM json_each(?))',
  )
  const clock = db.prepare<[], number>('SELECT now FROM version_clock').pluck()
  return {
    ...sqliteUsers(db, writes, assertAdmitted),
    ...sqliteSessions(db, writes, assertAdmitted),
    ...noteWrites,
    ...keptMethods,
    sweep: async (cutoffs) => ({ ...(await sweepKept(cutoffs)), changes: await feed.sweep(writes, cutoffs.changedBefore) }),
    changesSince: async (userId, since, limit) => feed.changesSince(userId, since, limit),
    ...sqliteTransfer(db),
    findNote: async (userId, noteId) => notes.findNote(userId, noteId),
    listNotesJson: (userId) => notes.listNotesJson(userId),
    searchNotesJson: (userId, matcher) => search.searchNotesJson(userId, matcher),
    buildSearchIndex: (progress) => search.build(writes, progress),
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
