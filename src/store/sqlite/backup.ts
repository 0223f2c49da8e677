// A consistent online copy of the embedded database. The backup API restarts a copy whenever
// another connection writes between two steps, so every page is copied in one step: one snapshot
// under one read lock, while WAL writers carry on (https://www.sqlite.org/backup.html).
import { existsSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { SQLITE_FILE } from './index.js'

export async function backupSqlite(
  dataDir: string,
  target: string,
): Promise<{ file: string; pages: number; users: number; notes: number }> {
  if (existsSync(target)) throw new Error(`${target} already exists; choose a new file name`)
  const sourceFile = join(dataDir, SQLITE_FILE)
  if (!existsSync(sourceFile)) throw new Error(`no database at ${sourceFile} (check DATA_DIR)`)
  const source = new Database(sourceFile, { fileMustExist: true })
  // Written under a temporary name and renamed, so FILE is never a half-written database.
  const partial = `${target}.partial`
  rmSync(partial, { force: true })
  try {
    source.pragma('busy_timeout = 5000')
    const { totalPages } = await source.backup(partial, { progress: () => 0x7fffffff })
    const copy = new Database(partial, { fileMustExist: true })
    try {
      const check = copy.pragma('integrity_check', { simple: true })
      if (check !== 'ok') throw new Error(`the copy failed its integrity check: ${String(check)}`)
      // A self-contained file: no -wal or -shm beside it.
      copy.pragma('journal_mode = DELETE')
      const users = copy.prepare('SELECT count(*) FROM users').pluck().get() as number
      const notes = copy.prepare('SELECT count(*) FROM notes').pluck().get() as number
      copy.close()
      renameSync(partial, target)
      return { file: target, pages: totalPages, users, notes }
    } finally {
      if (copy.open) copy.close()
    }
  } catch (err) {
    rmSync(partial, { force: true })
    throw err
  } finally {
    source.close()
  }
}
