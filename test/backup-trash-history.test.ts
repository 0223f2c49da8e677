// backup copies the trash and the history with the notes: restored as docs/operations.md says, the copy answers
// every listing, trash and history as the original did, with the same kept bytes.
import assert from 'node:assert/strict'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, it } from 'node:test'
import Database from 'better-sqlite3'
import { SQLITE_FILE, openSqliteStore } from '../src/store/sqlite/index.js'
import { backupSqlite } from '../src/store/sqlite/backup.js'
import { type Harness, startHarness } from './support/harness.js'
import { trashHistoryAnswers, trashHistoryBytes, makeTrashHistoryData } from './support/trash-history-data.js'
import { type StoreWithSql, openStoreWithSql } from './support/sql-stores.js'
import { SERVICE_LIMITS, cached } from './support/stores.js'
import { tempDir } from './support/temp.js'
import { TempDir, exportAll } from './support/transfer.js'

let source: StoreWithSql
let h: Harness
before(async () => {
  source = await openStoreWithSql('sqlite', SERVICE_LIMITS)
  h = await startHarness('inject', { store: source.store })
})
after(async () => {
  await h.close()
  await source.close()
})

it('a backup, restored, keeps the trash and the history as they were', async () => {
  const data = await makeTrashHistoryData(h.client)
  const files = new TempDir()
  const restored = tempDir('notes-restored-')
  try {
    const copy = files.file('copy.db')
    // The server's store stays open: the backup is taken while it could write.
    await backupSqlite(source.env.DATA_DIR!, copy)
    copyFileSync(copy, join(restored.path, SQLITE_FILE))
    const store = cached(openSqliteStore({ dataDir: restored.path }))
    const db = new Database(join(restored.path, SQLITE_FILE), { readonly: true })
    try {
      const answers = await trashHistoryAnswers(store, data)
      assert.ok(
        answers.every((a) => a.trash.length > 0) &&
          answers.some((a) => a.history.some((revisions) => (revisions ?? []).length > 0)),
        'there is a trash and a history to keep',
      )
      assert.deepEqual(answers, await trashHistoryAnswers(source.store, data))
      assert.deepEqual(
        await trashHistoryBytes(async (text) => db.prepare(text).all()),
        await trashHistoryBytes((text) => source.sql(text)),
      )
      assert.deepEqual(
        (await exportAll(store, files, 'restored')).texts,
        (await exportAll(source.store, files, 'original')).texts,
      )
      // Search's index came with the pages, complete and equal to the restored notes (FTS5's own check).
      assert.equal(db.prepare('SELECT count(*) FROM note_text_build').pluck().get(), 0)
      const writable = new Database(join(restored.path, SQLITE_FILE))
      try {
        writable.prepare("INSERT INTO note_text (note_text, rank) VALUES ('integrity-check', 1)").run()
      } finally {
        writable.close()
      }
    } finally {
      db.close()
      await store.close()
    }
  } finally {
    restored.remove()
    files.remove()
  }
})
