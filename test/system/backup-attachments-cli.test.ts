// backup FILE with the disk blob driver, as an operator runs it (a child process of the real CLI): the attachment
// files go to FILE.attachments/, checked; restored as docs/operations.md says (FILE as notes.db, the folder as
// DATA_DIR/attachments), every record has its bytes with the right sha256 and every link. A file that differs from its
// record fails the backup and leaves nothing; records whose bytes another driver keeps are counted.
import assert from 'node:assert/strict'
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { openConfiguredBlobs } from '../../src/blobs/configured.js'
import { parseConfig } from '../../src/config.js'
import { SQLITE_FILE, openSqliteStore } from '../../src/store/sqlite/index.js'
import { type AttachmentData, attachmentAnswers, makeAttachmentData, sha256Of } from '../support/attachment-data.js'
import { runCli } from '../support/cli.js'
import { startHarness } from '../support/harness.js'
import { type StoreWithSql, openStoreWithSql } from '../support/sql-stores.js'
import { SERVICE_LIMITS, cached } from '../support/stores.js'
import { tempDir } from '../support/temp.js'
import { bytesOf } from '../support/blob-contract.js'

describe('notes-service backup (CLI) with attachment files on disk', () => {
  let db: StoreWithSql
  let files: ReturnType<typeof tempDir>
  let data: AttachmentData
  let original: Awaited<ReturnType<typeof attachmentAnswers>>
  before(async () => {
    db = await openStoreWithSql('sqlite', SERVICE_LIMITS)
    files = tempDir('notes-backup-')
    const blobs = await openConfiguredBlobs(parseConfig(db.env))
    const h = await startHarness('inject', { store: db.store, blobs })
    try {
      data = await makeAttachmentData(h)
      original = await attachmentAnswers(h.client, data)
    } finally {
      await h.app.close()
      await blobs.close()
    }
  })
  after(async () => {
    await db.close()
    files.remove()
  })

  it('copies the files beside the database; restored, every record has its bytes and its links', async () => {
    const file = join(files.path, 'notes.db')
    const run = await runCli(['backup', file], db.env)
    assert.equal(run.code, 0, run.stderr)
    assert.match(
      run.stdout,
      new RegExp(
        `^backup written to .*notes\\.db: 2 user\\(s\\), 2 note\\(s\\), integrity ok\\n4 attachment file\\(s\\) copied to .*notes\\.db\\.attachments, sha256 checked\\n$`,
      ),
    )

    const restored = tempDir('notes-restored-')
    try {
      copyFileSync(file, join(restored.path, SQLITE_FILE))
      cpSync(`${file}.attachments`, join(restored.path, 'attachments'), { recursive: true })
      const store = cached(openSqliteStore({ dataDir: restored.path }))
      const blobs = await openConfiguredBlobs(parseConfig({ DATA_DIR: restored.path }))
      const h = await startHarness('inject', { store, blobs })
      try {
        for (const record of await store.attachmentsAfter(undefined, 100)) {
          const bytes = await bytesOf((await blobs.read(record.blobKey))!)
          assert.equal(sha256Of(bytes), record.sha256)
        }
        assert.deepEqual(await attachmentAnswers(h.client, data), original)
      } finally {
        await h.close()
        await blobs.close()
      }
    } finally {
      restored.remove()
    }

    const again = await runCli(['backup', join(files.path, 'other.db')], db.env)
    assert.equal(again.code, 0, again.stderr)
    mkdirSync(join(files.path, 'taken.db.attachments'))
    const taken = await runCli(['backup', join(files.path, 'taken.db')], db.env)
    assert.equal(taken.code, 1)
    assert.match(taken.stderr, /taken\.db\.attachments already exists/)
    assert.equal(existsSync(join(files.path, 'taken.db')), false)
  })

  it('fails, leaving nothing, when a file differs from its record; counts the files another driver keeps', async () => {
    const [first, second] = await db.sql<{ id: string; blob_key: string }>(
      'SELECT id, blob_key FROM attachments ORDER BY id LIMIT 2',
    )
    const path = join(db.env.DATA_DIR!, 'attachments', first!.blob_key)
    const kept = readFileSync(path)
    writeFileSync(path, 'spoiled')
    const file = join(files.path, 'spoiled.db')
    const spoiled = await runCli(['backup', file], db.env)
    assert.equal(spoiled.code, 1)
    assert.match(
      spoiled.stderr,
      new RegExp(`attachment ${first!.id}: .* holds 7 bytes with sha256 ${sha256Of(Buffer.from('spoiled'))}`),
    )
    assert.equal(existsSync(file), false)
    assert.equal(existsSync(`${file}.attachments`), false)
    assert.equal(existsSync(`${file}.attachments.partial`), false)
    writeFileSync(path, kept)

    // As after `attachments migrate --to s3`: the record names an object of the bucket.
    await db.sql('UPDATE attachments SET blob_key = id WHERE id = ?', [second!.id])
    const elsewhere = await runCli(['backup', join(files.path, 'elsewhere.db')], db.env)
    assert.equal(elsewhere.code, 0, elsewhere.stderr)
    assert.match(
      elsewhere.stdout,
      /\n3 attachment file\(s\) copied to .*, sha256 checked\n1 attachment\(s\) kept in another blob storage \(S3\) are not copied: back it up too\n$/,
    )
  })
})
