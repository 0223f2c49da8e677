// export / import --attachments as an operator runs them (child processes of the real CLI): from SQLite with the disk
// driver to PostgreSQL with its own blob driver and back, every file byte-identical (sha256), every link from the
// notes, the trash and the history kept, and the files the same at each step; then what an import rejects.
import assert from 'node:assert/strict'
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { openConfiguredBlobs } from '../../src/blobs/configured.js'
import { diskBlobs } from '../../src/blobs/disk.js'
import type { BlobStorage } from '../../src/blobs/types.js'
import { parseConfig } from '../../src/config.js'
import { type AttachmentData, attachmentAnswers, makeAttachmentData, sha256Of } from '../support/attachment-data.js'
import { runCli } from '../support/cli.js'
import { startHarness } from '../support/harness.js'
import { type StoreWithSql, openStoreWithSql } from '../support/sql-stores.js'
import { SERVICE_LIMITS, type StoreKind, storeKinds } from '../support/stores.js'
import { TempDir } from '../support/transfer.js'

const COLLECTIONS = ['users', 'notes', 'trash', 'history'] as const

/** A store of `kind` and the blob storage its configuration chooses (the disk under DATA_DIR with SQLite). */
async function openService(kind: StoreKind): Promise<{ db: StoreWithSql; blobs: BlobStorage; close(): Promise<void> }> {
  const db = await openStoreWithSql(kind, SERVICE_LIMITS)
  const blobs =
    kind === 'sqlite'
      ? diskBlobs(join(db.env.DATA_DIR!, 'attachments'))
      : await openConfiguredBlobs(parseConfig(db.env))
  return {
    db,
    blobs,
    async close() {
      await blobs.close()
      await db.close()
    },
  }
}

/** What a service over `service` answers about the data. */
async function answersOf(service: { db: StoreWithSql; blobs: BlobStorage }, data: AttachmentData) {
  const h = await startHarness('inject', { store: service.db.store, blobs: service.blobs })
  try {
    return await attachmentAnswers(h.client, data)
  } finally {
    await h.app.close()
  }
}

if (storeKinds().includes('postgresql')) {
  describe('notes-service export / import --attachments (CLI), SQLite to PostgreSQL and back', () => {
    let dir: TempDir
    let source: Awaited<ReturnType<typeof openService>>
    let data: AttachmentData
    let original: Awaited<ReturnType<typeof answersOf>>
    before(async () => {
      dir = new TempDir()
      source = await openService('sqlite')
      const h = await startHarness('inject', { store: source.db.store, blobs: source.blobs })
      data = await makeAttachmentData(h)
      original = await attachmentAnswers(h.client, data)
      await h.app.close()
    })
    after(async () => {
      await source.close()
      dir.remove()
    })

    /** `export` of everything from `env` into files and a directory named `name-…`. */
    const exportAll = async (name: string, env: Record<string, string>) => {
      const files = Object.fromEntries(COLLECTIONS.map((k) => [k, dir.file(`${name}-${k}.json`)]))
      const attachments = dir.file(`${name}-attachments`)
      const args = [...COLLECTIONS.flatMap((k) => [`--${k}`, files[k]!]), '--attachments', attachments]
      const run = await runCli(['export', ...args, '--with-password-hashes'], env)
      assert.equal(run.code, 0, run.stderr)
      assert.match(
        run.stderr,
        /^exported 2 user\(s\), 2 note\(s\), 1 trashed note\(s\), 1 revision\(s\) and 4 attachment\(s\)\n$/,
      )
      return { args, attachments }
    }
    /** The attachments directory: each file's name and SHA-256, and the records' text. */
    const contentsOf = (path: string) => ({
      records: readFileSync(join(path, 'attachments.json'), 'utf8'),
      files: readdirSync(path)
        .sort()
        .map((name) => [name, sha256Of(readFileSync(join(path, name)))]),
    })

    it('moves every file, byte for byte, with its links, and a second import changes nothing', async () => {
      const first = await exportAll('first', source.db.env)
      const exported = contentsOf(first.attachments)
      assert.deepEqual(
        exported.files.filter(([name]) => name !== 'attachments.json'),
        data.files.map((f) => [f._id, sha256Of(f.bytes)]).sort(),
        'one file per attachment, named by its id, holding its bytes',
      )
      assert.deepEqual(
        exported.records
          .trim()
          .split('\n')
          .map((line) => Object.keys(JSON.parse(line) as object)),
        Array(4).fill(['_id', 'userId', 'name', 'type', 'size', 'sha256', 'createdOn']),
      )

      const middle = await openService('postgresql')
      try {
        const run = await runCli(['import', ...first.args, '--threads', '1'], middle.db.env)
        assert.equal(run.code, 0, run.stderr)
        assert.match(
          run.stdout,
          /\nusers: 2 imported.*\nattachments: 4 imported, 0 skipped \(already present\), 0 rejected\nnotes: 2 imported/,
        )
        assert.deepEqual(await answersOf(middle, data), original)
        const blobDriver = await middle.db.sql<{ n: string }>('SELECT count(*) AS n FROM attachment_blobs')
        assert.equal(Number(blobDriver[0]!.n), 4, 'the bytes are in PostgreSQL, the driver its configuration chooses')

        const twice = await runCli(['import', ...first.args, '--threads', '1'], middle.db.env)
        assert.equal(twice.code, 0, twice.stderr)
        assert.match(twice.stdout, /\nattachments: 0 imported, 4 skipped \(already present\), 0 rejected\n/)

        const second = await exportAll('second', middle.db.env)
        assert.deepEqual(contentsOf(second.attachments), exported)
        const last = await openService('sqlite')
        try {
          const back = await runCli(['import', ...second.args, '--threads', '1'], last.db.env)
          assert.equal(back.code, 0, back.stderr)
          assert.deepEqual(await answersOf(last, data), original)
          assert.deepEqual(contentsOf((await exportAll('third', last.db.env)).attachments), exported)
        } finally {
          await last.close()
        }
      } finally {
        await middle.close()
      }
    })

    it('rejects a record whose file is missing or differs, and keeps nothing of it', async () => {
      const { args, attachments } = await exportAll('spoiled', source.db.env)
      const [changed, removed] = data.files
      writeFileSync(join(attachments, changed!._id), Buffer.concat([changed!.bytes, Buffer.from('!')]))
      writeFileSync(join(attachments, removed!._id), 'other bytes')
      const gone = data.files[2]!
      rmSync(join(attachments, gone._id))

      const target = await openService('sqlite')
      try {
        const run = await runCli(['import', ...args, '--threads', '1'], target.db.env)
        assert.equal(run.code, 3, run.stderr)
        assert.match(
          run.stderr,
          new RegExp(
            `spoiled-attachments/attachments\\.json:\\d+: attachment ${changed!._id}: .* holds more than ${changed!.size} bytes, the record says`,
          ),
        )
        assert.match(
          run.stderr,
          new RegExp(
            `attachment ${removed!._id}: .* holds 11 bytes with sha256 ${sha256Of(Buffer.from('other bytes'))}`,
          ),
        )
        assert.match(run.stderr, new RegExp(`attachment ${gone._id}: no file .*; not imported`))
        assert.match(
          run.stdout,
          /\nattachments: 1 imported, 0 skipped \(already present\), 3 rejected \(2 sha256 mismatch, 1 missing file\)\n/,
        )
        const kept: string[] = []
        for await (const blob of target.blobs.list()) kept.push(blob.key)
        assert.equal(kept.length, 1, 'only the imported record’s bytes are stored')
        assert.equal((await target.db.sql('SELECT id FROM attachments')).length, 1)
      } finally {
        await target.close()
      }
    })
  })
}
