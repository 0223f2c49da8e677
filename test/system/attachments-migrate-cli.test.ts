// notes-service attachments migrate as an operator runs it (a child process of the real CLI) while a service runs:
// on PostgreSQL from the disk to PostgreSQL's blob tables and back, every file served all along by a service still
// configured with the driver it started with and by one restarted with the new one; a second run moves only what
// was uploaded since. On SQLite, from the disk to S3 (a local s3rver) and back, the same; a file that differs from
// its record fails the run, and the usage errors.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { openConfiguredBlobs } from '../../src/blobs/configured.js'
import type { BlobStorage } from '../../src/blobs/types.js'
import { parseConfig } from '../../src/config.js'
import { attachmentAnswers, makeAttachmentData } from '../support/attachment-data.js'
import { uploaded } from '../support/attachments.js'
import { runCli } from '../support/cli.js'
import { type Harness, startHarness } from '../support/harness.js'
import { startLocalS3 } from '../support/s3rver.js'
import { type StoreWithSql, openStoreWithSql } from '../support/sql-stores.js'
import { SERVICE_LIMITS, storeKinds } from '../support/stores.js'
import { tempDir } from '../support/temp.js'

/** A service over `db` whose storage is `driver`, as `serve` opens it with ATTACHMENTS_STORAGE set. */
async function serviceWith(db: StoreWithSql, env: Record<string, string>): Promise<{ h: Harness; blobs: BlobStorage }> {
  const blobs = await openConfiguredBlobs(parseConfig(env))
  return { h: await startHarness('inject', { store: db.store, blobs }), blobs }
}

async function stop(service: { h: Harness; blobs: BlobStorage }): Promise<void> {
  await service.h.app.close()
  await service.blobs.close()
}

/** The blob key of every record. */
const blobKeysOf = async (db: StoreWithSql) =>
  (await db.sql<{ blob_key: string }>('SELECT blob_key FROM attachments')).map((r) => r.blob_key)

/** A service on the disk driver holding makeAttachmentData's files, and what it answers about them. */
async function filesOnDisk(db: StoreWithSql, env: Record<string, string>) {
  const onDisk = await serviceWith(db, env)
  try {
    const data = await makeAttachmentData(onDisk.h)
    return { onDisk, data, original: await attachmentAnswers(onDisk.h.client, data) }
  } catch (err) {
    await stop(onDisk)
    throw err
  }
}

const SUMMARY =
  /^attachments on (\w+): (\d+) moved, (\d+) verified, (\d+) skipped \(already there\), (\d+) failed, (\d+) erased meanwhile\n$/

/** The summary's counts: moved, verified, skipped, failed, erased. */
function countsOf(stdout: string): number[] {
  const match = SUMMARY.exec(stdout)
  assert.ok(match, stdout)
  return match.slice(2).map(Number)
}

if (storeKinds().includes('postgresql')) {
  describe('notes-service attachments migrate (CLI, postgresql) while a service runs', () => {
    let db: StoreWithSql
    let dataDir: ReturnType<typeof tempDir>
    let env: (driver: string) => Record<string, string>
    before(async () => {
      db = await openStoreWithSql('postgresql', SERVICE_LIMITS)
      dataDir = tempDir('notes-migrate-')
      env = (driver) => ({ ...db.env, DATA_DIR: dataDir.path, ATTACHMENTS_STORAGE: driver })
    })
    after(async () => {
      await db.close()
      dataDir.remove()
    })

    const blobRows = async () =>
      Number((await db.sql<{ n: string }>('SELECT count(*) AS n FROM attachment_blobs'))[0]!.n)
    const keys = () => blobKeysOf(db)

    it('moves every file to PostgreSQL and back, served throughout by the old and the new configuration', async () => {
      const made = await filesOnDisk(db, env('disk'))
      const { onDisk, data } = made
      let { original } = made
      try {
        assert.equal(await blobRows(), 0)

        const run = await runCli(['attachments', 'migrate', '--to', 'postgresql'], env('disk'))
        assert.equal(run.code, 0, run.stderr)
        assert.deepEqual(countsOf(run.stdout), [4, 4, 0, 0, 0])
        assert.match(
          run.stderr,
          /^moving attachments to postgresql from disk\n4 checked: 4 moved, 0 skipped, 0 failed\n$/,
        )
        assert.equal(await blobRows(), 4)
        assert.ok(
          (await keys()).every((key) => /^[0-9a-f]{24}$/.test(key)),
          'every record names its row',
        )
        assert.deepEqual(await attachmentAnswers(onDisk.h.client, data), original, 'the old configuration serves them')

        // Uploaded before the restart: to the disk, which the next run empties.
        const [ada] = data.accounts
        const late = await uploaded(onDisk.h, ada!.token, { filename: 'late.txt', bytes: 'uploaded meanwhile' })
        data.files.push({ ...late, bytes: Buffer.from('uploaded meanwhile') })
        original = await attachmentAnswers(onDisk.h.client, data)
      } finally {
        await stop(onDisk)
      }

      const restarted = await serviceWith(db, env('postgresql'))
      try {
        assert.deepEqual(
          await attachmentAnswers(restarted.h.client, data),
          original,
          'the new one serves the late file too',
        )
        const again = await runCli(['attachments', 'migrate', '--to', 'postgresql'], env('postgresql'))
        assert.equal(again.code, 0, again.stderr)
        assert.deepEqual(countsOf(again.stdout), [1, 5, 4, 0, 0])
        assert.equal(await blobRows(), 5)

        const back = await runCli(['attachments', 'migrate', '--to', 'disk'], env('postgresql'))
        assert.equal(back.code, 0, back.stderr)
        assert.deepEqual(countsOf(back.stdout), [5, 5, 0, 0, 0])
        assert.equal(await blobRows(), 0, 'nothing left in PostgreSQL')
        assert.ok(
          (await keys()).every((key) => key.includes('/')),
          'every record names its file',
        )
        assert.deepEqual(await attachmentAnswers(restarted.h.client, data), original)
      } finally {
        await stop(restarted)
      }
    })
  })
}

describe(
  'notes-service attachments migrate (CLI, sqlite) to S3 and back while a service runs',
  { timeout: 300_000 },
  () => {
    it('moves every file to the bucket and back, served throughout, and leaves each place empty after', async () => {
      const db = await openStoreWithSql('sqlite', SERVICE_LIMITS)
      const s3 = await startLocalS3(['moved'])
      try {
        const o = s3.optionsFor('moved')
        const env = (driver: string) => ({
          ...db.env,
          ATTACHMENTS_STORAGE: driver,
          ATTACHMENTS_S3_ENDPOINT: o.endpoint!,
          ATTACHMENTS_S3_BUCKET: 'moved',
          ATTACHMENTS_S3_ACCESS_KEY_ID: o.accessKeyId!,
          ATTACHMENTS_S3_SECRET_ACCESS_KEY: o.secretAccessKey!,
        })
        const keys = () => blobKeysOf(db)
        const { onDisk, data, original } = await filesOnDisk(db, env('disk'))
        try {
          const run = await runCli(['attachments', 'migrate', '--to', 's3'], env('disk'))
          assert.equal(run.code, 0, run.stderr)
          assert.deepEqual(countsOf(run.stdout), [4, 4, 0, 0, 0])
          assert.ok(
            (await keys()).every((key) => !key.includes('/')),
            'every record names its object',
          )
          assert.deepEqual(
            await attachmentAnswers(onDisk.h.client, data),
            original,
            'the old configuration serves them',
          )
        } finally {
          await stop(onDisk)
        }
        const onS3 = await serviceWith(db, env('s3'))
        try {
          assert.deepEqual(await attachmentAnswers(onS3.h.client, data), original, 'the new one serves them')
          const back = await runCli(['attachments', 'migrate', '--to', 'disk'], env('s3'))
          assert.equal(back.code, 0, back.stderr)
          assert.deepEqual(countsOf(back.stdout), [4, 4, 0, 0, 0])
          assert.ok(
            (await keys()).every((key) => key.includes('/')),
            'every record names its file',
          )
          const left: string[] = []
          for await (const blob of onS3.blobs.list()) left.push(blob.key)
          assert.deepEqual(left, [], 'nothing left in the bucket')
          assert.deepEqual(await attachmentAnswers(onS3.h.client, data), original)
        } finally {
          await stop(onS3)
        }
      } finally {
        await s3.close()
        await db.close()
      }
    })
  },
)

describe('notes-service attachments migrate (CLI, sqlite): checks, failures and usage', () => {
  let db: StoreWithSql
  before(async () => {
    db = await openStoreWithSql('sqlite', SERVICE_LIMITS)
  })
  after(async () => db.close())

  it('verifies every file on its target and exits 1 when one differs from its record', async () => {
    const service = await serviceWith(db, db.env)
    try {
      await makeAttachmentData(service.h)
    } finally {
      await stop(service)
    }
    const clean = await runCli(['attachments', 'migrate', '--to', 'disk'], db.env)
    assert.equal(clean.code, 0, clean.stderr)
    assert.deepEqual(countsOf(clean.stdout), [0, 4, 4, 0, 0])

    const [spoiled] = await db.sql<{ id: string; blob_key: string }>('SELECT id, blob_key FROM attachments LIMIT 1')
    const path = join(db.env.DATA_DIR!, 'attachments', spoiled!.blob_key)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, 'not the bytes uploaded')
    const failed = await runCli(['attachments', 'migrate', '--to', 'disk'], db.env)
    assert.equal(failed.code, 1, failed.stderr)
    assert.deepEqual(countsOf(failed.stdout), [0, 3, 3, 1, 0])
    assert.match(
      failed.stderr,
      new RegExp(
        `^attachment ${spoiled!.id}: disk holds 22 bytes with sha256 [0-9a-f]{64} under ${spoiled!.blob_key}, not the record's; left as it is$`,
        'm',
      ),
    )
  })

  it('names what a target needs, and answers usage errors with the usage', async () => {
    const noDatabase = await runCli(['attachments', 'migrate', '--to', 'postgresql'], db.env)
    assert.equal(noDatabase.code, 1)
    assert.match(noDatabase.stderr, /^notes-service: attachments migrate --to postgresql needs DATABASE_URL/)
    const noBucket = await runCli(['attachments', 'migrate', '--to', 's3'], db.env)
    assert.equal(noBucket.code, 1)
    assert.match(noBucket.stderr, /needs ATTACHMENTS_S3_BUCKET/)
    for (const args of [['attachments'], ['attachments', 'migrate'], ['attachments', 'migrate', '--to', 'ftp']]) {
      const run = await runCli(args, db.env)
      assert.equal(run.code, 2, args.join(' '))
      assert.match(run.stderr, /\nusage:\n.*attachments migrate --to disk\|postgresql\|s3/s)
    }
  })
})
