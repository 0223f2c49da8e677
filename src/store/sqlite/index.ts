// The embedded store: SQLite through better-sqlite3, in WAL mode. With synchronous=FULL (the
// default) a write is on disk before it is acknowledged, so it survives a power cut
// (https://www.sqlite.org/pragma.html#pragma_synchronous).
import { chmodSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { earlierNumbers, sharedNumbers } from '../migrations.js'
import { limits, resizes } from '../note-quota.js'
import type { SessionRecord, StoreDriver, UserRecord, UserVersions } from '../types.js'
import { FreeSpaceGuard, type FreeSpaceReader, statfsReader } from './free-space.js'
import { GroupCommitWriter } from './group-commit.js'
import { type Migration, migrations } from './migrations.js'
import { SqliteNotes } from './notes.js'
import { SqliteQuota } from './quota.js'
import { SqliteSessions } from './sessions.js'
import { SqliteTransfer } from './transfer.js'
import { SqliteUsers, actorCheck } from './users.js'

export interface SqliteOptions {
  /** Directory holding notes.db; created when missing. ':memory:' keeps everything in memory. */
  dataDir: string
  synchronous?: 'FULL' | 'NORMAL'
  /**
   * Writes that add data are refused (LowDiskSpaceError) while less than this is free on the
   * data directory's file system (free-space.ts); 0 or absent: never.
   */
  minFreeDiskBytes?: number
  /** Where the free space is read from: statfs of `dataDir` unless given (tests inject one). */
  freeSpace?: FreeSpaceReader
}

export const SQLITE_FILE = 'notes.db'

/**
 * Applies every migration that schema_changes does not record; returns how many ran. `list` is
 * for tests that stop at an earlier version.
 *
 * schema_changes (number, name, applied_on) records the changes by the shared numbers
 * (../migrations.ts) and alone decides what runs. schema_migrations is what the builds before
 * the shared numbers read: it is never rewritten, and a change that had a number then is also
 * recorded there under that number, so such a build, started on this database again, finds
 * nothing to run (docs/architecture.md, "Migrations").
 */
export function migrateSqlite(db: Database.Database, list: readonly Migration[] = migrations): number {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_on TEXT NOT NULL)`)
  if (!hasSchemaChanges(db)) fillSchemaChanges(db)
  const applied = new Set(db.prepare('SELECT number FROM schema_changes').pluck().all() as number[])
  const recordedBefore = db.prepare<[number, string], string>('SELECT applied_on FROM schema_migrations WHERE version = ? AND name = ?').pluck()
  let count = 0
  for (const m of list) {
    if (applied.has(m.version)) continue
    const earlier = earlierNumbers.sqlite[m.name]
    // IMMEDIATE takes the write lock first, so two processes starting together serialise here.
    db.transaction(() => {
      const again = db.prepare('SELECT 1 FROM schema_changes WHERE number = ?').get(m.version)
      if (again) return
      // A build before the shared numbers, starting at the same moment, applied it since the fill.
      const since = earlier === undefined ? undefined : recordedBefore.get(earlier, m.name)
      if (since !== undefined) {
        db.prepare('INSERT INTO schema_changes VALUES (?, ?, ?)').run(m.version, m.name, since)
        return
      }
      if (m.sql) db.exec(m.sql)
      m.run?.(db)
      const now = new Date().toISOString()
      db.prepare('INSERT INTO schema_changes VALUES (?, ?, ?)').run(m.version, m.name, now)
      if (earlier !== undefined) db.prepare('INSERT OR IGNORE INTO schema_migrations VALUES (?, ?, ?)').run(earlier, m.name, now)
      count++
    }).immediate()
  }
  return count
}

function hasSchemaChanges(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_changes'").get() !== undefined
}

/**
 * Makes schema_changes and records in it, by their shared numbers, the changes schema_migrations
 * records (sharedNumbers: an unknown row is an error), in one IMMEDIATE transaction that checks
 * again once it holds the write lock, so that of two processes starting together one fills it.
 */
function fillSchemaChanges(db: Database.Database): void {
  db.transaction(() => {
    if (hasSchemaChanges(db)) return
    const rows = db.prepare<[], { version: number; name: string; applied_on: string }>('SELECT version, name, applied_on FROM schema_migrations').all()
    db.exec(`CREATE TABLE schema_changes (
      number INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_on TEXT NOT NULL)`)
    const insert = db.prepare('INSERT INTO schema_changes VALUES (?, ?, ?)')
    for (const r of sharedNumbers('sqlite', rows, migrations)) insert.run(r.version, r.name, r.applied_on)
  }).immediate()
}

export function openSqliteDatabase(options: SqliteOptions): Database.Database {
  let file = ':memory:'
  if (options.dataDir !== ':memory:') {
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 })
    file = join(options.dataDir, SQLITE_FILE)
  }
  const db = new Database(file)
  // The database holds password hashes: owner-only, like the secret file. SQLite gives the
  // -wal and -shm files the database file's permissions.
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

/** The free-space check of a store on disk (or with a reader given), when a minimum is set. */
function freeSpaceGuard(options: SqliteOptions): FreeSpaceGuard | undefined {
  const min = options.minFreeDiskBytes ?? 0
  if (min <= 0) return undefined
  const read = options.freeSpace ?? (options.dataDir === ':memory:' ? undefined : statfsReader(options.dataDir))
  return read && new FreeSpaceGuard(min, read)
}

export function openSqliteStore(options: SqliteOptions): StoreDriver {
  const db = openSqliteDatabase(options)
  migrateSqlite(db)
  const assertAdmitted = actorCheck(db)
  const users = new SqliteUsers(db, assertAdmitted)
  const sessions = new SqliteSessions(db, assertAdmitted)
  const notes = new SqliteNotes(db)
  const transfer = new SqliteTransfer(db)
  const quota = new SqliteQuota(db, notes)
  const writer = sqliteGroupCommit(db)
  const disk = freeSpaceGuard(options)
  /** Runs a write that adds data once the disk has room for it (free-space.ts). */
  const roomFor = <T>(write: () => Promise<T>): Promise<T> => (disk ? disk.check().then(write) : write())
  // An account and its first session, together (a savepoint inside the writer's transaction).
  const createUser = db.transaction((user: UserRecord, session?: SessionRecord) => {
    if (!users.create(user)) return false
    if (session) sessions.add(session)
    return true
  })
  // One statement, so one read lock, for all the users the cache layer asks about in a turn.
  type VersionRow = { user_id: string; notes: number; account: number }
  const versionsOfOne = db.prepare<[string], VersionRow>('SELECT user_id, notes, account FROM user_versions WHERE user_id = ?')
  const versionsOfMany = db.prepare<[string], VersionRow>(
    'SELECT user_id, notes, account FROM user_versions WHERE user_id IN (SELECT value FROM json_each(?))',
  )
  const clock = db.prepare<[], number>('SELECT now FROM version_clock').pluck()
  // better-sqlite3 is synchronous; the async signatures let a networked driver share the interface.
  // Writes go through the group-commit writer: they resolve once their transaction is on disk.
  return {
    createUser: (user, session) => roomFor(() => writer.write(() => createUser(user, session))),
    findUserByEmailKey: async (key) => users.findByEmailKey(key),
    findUserById: async (id) => users.findById(id),
    updateUser: (userId, change, revocation, actor) => writer.write(() => users.update(userId, change, revocation, actor)),
    deleteUser: (userId, actor) => writer.write(() => users.remove(userId, actor)),
    createSession: (session, prune) => writer.write(() => sessions.create(session, prune)),
    findSession: async (sessionId) => sessions.find(sessionId),
    touchSession: (sessionId, lastUsedOn, staleBefore) => writer.write(() => sessions.touchIfStale(sessionId, lastUsedOn, staleBefore)),
    listSessions: async (userId, createdSince) => sessions.list(userId, createdSince),
    deleteSession: (userId, sessionId, actor) => writer.write(() => sessions.delete(userId, sessionId, actor)),
    insertNote: (note, q) =>
      roomFor(() => writer.write(() => (limits(q) ? quota.insertNote(note, q) : notes.insertNote(note)))),
    findNote: async (userId, noteId) => notes.findNote(userId, noteId),
    updateNote: (userId, noteId, patch, updatedOn, q) =>
      roomFor(() =>
        writer.write(() =>
          q !== undefined && q.bytes > 0 && resizes(patch)
            ? quota.updateNote(userId, noteId, patch, updatedOn, q)
            : notes.updateNote(userId, noteId, patch, updatedOn),
        ),
      ),
    deleteNote: (userId, noteId) => writer.write(() => notes.deleteNote(userId, noteId)),
    listNotesJson: (userId) => notes.listNotesJson(userId),
    searchNotesJson: (userId, matcher) => notes.searchNotesJson(userId, matcher),
    importUsers: async (batch) => transfer.importUsers(batch),
    importNotes: async (batch) => transfer.importNotes(batch),
    userVersions: async (userIds) => {
      const found = new Map<string, UserVersions>()
      const rows = userIds.length === 1 ? versionsOfOne.all(userIds[0]!) : versionsOfMany.all(JSON.stringify(userIds))
      for (const row of rows) found.set(row.user_id, { notes: String(row.notes), account: String(row.account) })
      return found
    },
    versionClock: async () => String(clock.get()),
    noteUsage: async (userId) => quota.usage(userId),
    accountsOverQuota: async (q) => quota.accountsOver(q),
    usersAfter: async (afterId, limit) => transfer.usersAfter(afterId, limit),
    notesAfter: async (afterId, limit, userId) => transfer.notesAfter(afterId, limit, userId),
    ping: async () => {
      db.prepare('SELECT 1').get()
    },
    close: async () => {
      if (!db.open) return
      writer.flush() // commit (and settle) every write still queued
      db.close()
    },
  }
}
