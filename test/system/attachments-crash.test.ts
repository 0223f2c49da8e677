// SIGKILL during uploads, on each attachment storage: the disk with SQLite, PostgreSQL's tables, and S3 (a local
// s3rver). After each restart every acknowledged upload is listed and served whole (scenarios/attachment-crash.ts).
// Then, with the server stopped, the storage itself: every record's bytes are there, nothing held is a partial file,
// and the sweep as of two hours later leaves exactly the records' bytes, with no unfinished write left anywhere.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import Database from 'better-sqlite3'
import pg from 'pg'
import { openBlobDriver } from '../../src/blobs/configured.js'
import type { BlobDriverName } from '../../src/blobs/types.js'
import { parseConfig } from '../../src/config.js'
import { sweepAttachments } from '../../src/services/attachments-sweep.js'
import { openPostgresStore } from '../../src/store/postgres/index.js'
import { SQLITE_FILE, openSqliteStore } from '../../src/store/sqlite/index.js'
import { TEST_SECRET } from '../support/harness.js'
import { runAttachmentCrash } from '../support/scenarios/attachment-crash.js'
import { createTestDatabase, serviceAvailable } from '../support/services.js'
import { type LocalS3, startLocalS3 } from '../support/s3rver.js'
import { cached } from '../support/stores.js'
import { tempDir } from '../support/temp.js'

const HOUR_MS = 3_600_000

interface RecordRow {
  id: string
  blob_key: string
  sha256: string
}

interface Setup {
  driver: BlobDriverName
  env: Record<string, string>
  /** Every attachment record, read with SQL once the server is stopped. */
  records(): Promise<RecordRow[]>
  /** Whether the storage has begun to keep the upload in progress; undefined: as soon as it is under way. */
  readyToKill?: () => boolean
  /** What the driver keeps of writes that never finished, outside its keys: none once swept. */
  leftovers(): Promise<string[]>
  close(): Promise<void>
}

async function sqliteSetup(dataDir: string, driver: 'disk' | 's3', s3?: LocalS3): Promise<Setup> {
  const bucket = 'crash'
  const env: Record<string, string> = { DATA_DIR: dataDir }
  if (s3) {
    const o = s3.optionsFor(bucket)
    Object.assign(env, {
      ATTACHMENTS_S3_ENDPOINT: o.endpoint!,
      ATTACHMENTS_S3_BUCKET: bucket,
      ATTACHMENTS_S3_REGION: o.region,
      ATTACHMENTS_S3_ACCESS_KEY_ID: o.accessKeyId!,
      ATTACHMENTS_S3_SECRET_ACCESS_KEY: o.secretAccessKey!,
    })
  }
  // On S3 the kill waits for a multipart upload holding a part (its folder holds the key and the parts), so that it
  // cuts one with bytes sent.
  const partSent = (id: string) => {
    try {
      return readdirSync(s3!.uploadFolder(bucket, id)).length > 1
    } catch {
      return false // completed or aborted meanwhile
    }
  }
  return {
    driver,
    env,
    ...(s3 && { readyToKill: () => s3.uploads(bucket).some(partSent) }),
    async records() {
      const db = new Database(join(dataDir, SQLITE_FILE), { readonly: true })
      try {
        return db.prepare('SELECT id, blob_key, sha256 FROM attachments').all() as RecordRow[]
      } finally {
        db.close()
      }
    },
    leftovers: async () => (driver === 's3' ? s3!.uploads(bucket) : readdirSync(join(dataDir, 'attachments', 'tmp'))),
    close: async () => s3?.close(),
  }
}

async function postgresSetup(dataDir: string): Promise<Setup> {
  const db = await createTestDatabase()
  const sql = async <T extends pg.QueryResultRow>(text: string) => {
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    try {
      return (await client.query<T>(text)).rows
    } finally {
      await client.end()
    }
  }
  return {
    driver: 'postgresql',
    env: { DATA_DIR: dataDir, DATABASE_URL: db.url },
    records: () => sql<RecordRow>('SELECT id, blob_key, sha256 FROM attachments'),
    leftovers: async () =>
      (
        await sql<{ key: string }>(
          'SELECT DISTINCT key FROM attachment_chunks c WHERE NOT EXISTS (SELECT 1 FROM attachment_blobs b WHERE b.key = c.key)',
        )
      ).map((row) => `chunks of ${row.key}`),
    close: () => db.drop(),
  }
}

async function sha256Of(stream: AsyncIterable<Buffer>): Promise<string> {
  const hash = createHash('sha256')
  for await (const piece of stream) hash.update(piece)
  return hash.digest('hex')
}

interface Variant {
  name: string
  setup: (dataDir: string) => Promise<Setup>
}
const variants: Variant[] = [
  { name: 'sqlite, disk', setup: (dir) => sqliteSetup(dir, 'disk') },
  ...(serviceAvailable('postgresql') ? [{ name: 'postgresql, postgresql', setup: postgresSetup }] : []),
  { name: 'sqlite, s3', setup: async (dir: string) => sqliteSetup(dir, 's3', await startLocalS3(['crash'])) },
]

for (const variant of variants) {
  describe(`uploads cut by SIGKILL (${variant.name})`, { timeout: 600_000 }, () => {
    it('keeps every acknowledged upload whole, and no partial file once the sweep has run', async () => {
      const dataDir = tempDir('notes-upload-crash-')
      const setup = await variant.setup(dataDir.path)
      try {
        const result = await runAttachmentCrash({
          env: setup.env,
          dataDir: dataDir.path,
          kills: 3,
          uploaders: 3,
          minRunMs: 300,
          maxRunMs: 1500,
          ...(setup.readyToKill && { readyToKill: setup.readyToKill }),
        })
        assert.deepEqual(result.problems, [])
        assert.equal(result.kills, 3)
        assert.ok(result.acknowledged > 0, 'uploads were acknowledged before the kills')

        const config = parseConfig({ ...setup.env, ACCESS_TOKEN_SECRET: TEST_SECRET })
        const blobs = await openBlobDriver(config, setup.driver)
        const store = cached(
          setup.driver === 'postgresql'
            ? await openPostgresStore({ url: setup.env.DATABASE_URL!, poolSize: 2 })
            : openSqliteStore({ dataDir: dataDir.path }),
        )
        try {
          const records = await setup.records()
          const held = new Map<string, string>()
          for await (const blob of blobs.list()) held.set(blob.key, await sha256Of((await blobs.read(blob.key))!))
          for (const record of records) {
            assert.equal(held.get(record.blob_key), record.sha256, `the bytes of ${record.id}`)
          }
          for (const [key, sha] of held) assert.ok(result.wholeFiles.has(sha), `${key} holds a partial or foreign file`)

          const swept = await sweepAttachments(store, blobs, config.attachments.graceDays, Date.now() + 2 * HOUR_MS)
          assert.equal(swept.records, 0, 'uploads are kept a day before an unlinked one is erased')
          const after = new Set<string>()
          for await (const blob of blobs.list()) after.add(blob.key)
          assert.deepEqual([...after].sort(), records.map((r) => r.blob_key).sort(), 'exactly the records’ bytes')
          assert.deepEqual(await setup.leftovers(), [], 'no unfinished write is left')
        } finally {
          await store.close()
          await blobs.close()
        }
      } finally {
        await setup.close()
        dataDir.remove()
      }
    })
  })
}
