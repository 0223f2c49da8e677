// A consistent online copy of the embedded database. The backup API restarts a copy whenever
// another connection writes between two steps, so every page is copied in one step: one snapshot
// under one read lock, while WAL writers carry on (https://www.sqlite.org/backup.html).
import { existsSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { AttachmentRecord } from '../../attachment-shape.js'
import { SQLITE_FILE } from './index.js'

/** What the copy's records say of an attachment's bytes, for the files that go with the database. */
export type BackedUpAttachment = Pick<AttachmentRecord, '_id' | 'blobKey' | 'size' | 'sha256'>

export interface BackupOptions {
  /**
   * Runs once the copy is whole and checked, before FILE takes its name, with the attachments the copy names, in id
   * order: files copied after the database are there for every record of it (a file is never changed once written).
   */
  beforePlacing?: (attachments: AsyncIterable<BackedUpAttachment>) => Promise<void>
}

/** The copy's attachments, a page at a time; none in a database from before attachments. */
async function* attachmentsOf(copy: Database.Database): AsyncGenerator<BackedUpAttachment> {
  const hasTable = copy.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'attachments'").get()
  if (!hasTable) return
  const page = copy.prepare<[string], BackedUpAttachment>(
    'SELECT id AS _id, blob_key AS blobKey, size, sha256 FROM attachments WHERE id > ? ORDER BY id LIMIT 500',
  )
  for (let rows = page.all(''); rows.length > 0; rows = page.all(rows.at(-1)!._id)) yield* rows
}

export async function backupSqlite(
  dataDir: string,
  target: string,
  options: BackupOptions = {},
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
      await options.beforePlacing?.(attachmentsOf(copy))
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
