// migrateAttachments (src/transfer/blob-migration.ts) in process, on both stores: between two disk folders on SQLite
// (drivers that key alike, as PostgreSQL and S3 do), and between the disk and PostgreSQL drivers on PostgreSQL. Every
// record's bytes end on the target, checked, the record switched and the old bytes erased, and served all along by
// the storage of a server still configured with the old driver; a second run only checks; a run that stopped
// half-way is finished; a record erased meanwhile leaves nothing; bytes that differ from the record stay where they
// are and fail the run.
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { after, afterEach, before, describe, it } from 'node:test'
import type { AttachmentRecord } from '../src/attachment-shape.js'
import { openBlobDriver } from '../src/blobs/configured.js'
import { diskBlobs } from '../src/blobs/disk.js'
import { withFallbacks } from '../src/blobs/fallback.js'
import { blobKeyOf } from '../src/blobs/keys.js'
import type { BlobStorage } from '../src/blobs/types.js'
import { parseConfig } from '../src/config.js'
import { newId } from '../src/services/ids.js'
import { type MigrationSummary, migrateAttachments } from '../src/transfer/blob-migration.js'
import { bytesOf, sourceOf } from './support/blob-contract.js'
import { type StoreWithSql, openStoreWithSql } from './support/sql-stores.js'
import { makeUser } from './support/store-contract.js'
import { type StoreKind, storeKinds } from './support/stores.js'
import { tempDir } from './support/temp.js'

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')

/** Writes `bytes` as the file of `key` under `dir`, as an operator's mistake or a failing disk would. */
function spoilFile(dir: string, key: string, bytes: Buffer): void {
  mkdirSync(dirname(join(dir, key)), { recursive: true })
  writeFileSync(join(dir, key), bytes)
}

interface Drivers {
  /** Where the bytes are first: the driver servers are configured with. */
  source: BlobStorage
  target: BlobStorage
  /** Puts other bytes where the target keeps the record's. */
  spoilTarget(id: string, sha256: string, bytes: Buffer): Promise<void>
  close(): Promise<void>
}

async function driversFor(db: StoreWithSql, reverse: boolean): Promise<Drivers> {
  const dir = tempDir('notes-migration-')
  if (db.kind === 'sqlite') {
    const [a, b] = [diskBlobs(join(dir.path, 'a')), diskBlobs(join(dir.path, 'b'))]
    return {
      source: a,
      target: b,
      spoilTarget: async (id, sha, bytes) => spoilFile(join(dir.path, 'b'), blobKeyOf('disk', id, sha), bytes),
      close: async () => dir.remove(),
    }
  }
  const disk = diskBlobs(dir.path)
  const rows = await openBlobDriver(parseConfig({ ...db.env, DATA_DIR: dir.path }), 'postgresql')
  const [source, target] = reverse ? [rows, disk] : [disk, rows]
  return {
    source,
    target,
    async spoilTarget(id, sha, bytes) {
      if (reverse) spoilFile(dir.path, blobKeyOf('disk', id, sha), bytes)
      else await rows.write(id, sourceOf(bytes), bytes.length)
    },
    async close() {
      await rows.close()
      dir.remove()
    },
  }
}

type Case = { kind: StoreKind; reverse: boolean }
const cases = storeKinds().flatMap((kind): Case[] =>
  kind === 'sqlite' ? [{ kind, reverse: false }] : [false, true].map((reverse) => ({ kind, reverse })),
)

for (const { kind, reverse } of cases) {
  describe(`attachments migrate (${kind}${reverse ? ', back' : ''})`, () => {
    let db: StoreWithSql
    let drivers: Drivers
    let userId: string
    before(async () => {
      db = await openStoreWithSql(kind)
      drivers = await driversFor(db, reverse)
      const user = makeUser()
      await db.store.createUser(user)
      userId = user._id
    })
    after(async () => {
      await drivers.close()
      await db.close()
    })
    // Each run sees only the records of its test.
    afterEach(async () => {
      const everywhere = withFallbacks(drivers.source, [async () => drivers.target])
      for (const record of await db.store.listAttachments(userId)) {
        await db.store.deleteAttachment(userId, record._id)
        await everywhere.remove(record.blobKey)
      }
    })

    /** A record whose bytes the source holds, as an upload makes it. */
    async function uploaded(bytes = randomBytes(3000)): Promise<AttachmentRecord & { bytes: Buffer }> {
      const _id = newId()
      const stored = await drivers.source.write(_id, sourceOf(bytes), bytes.length)
      const record: AttachmentRecord = {
        _id,
        name: 'f.bin',
        type: 'application/octet-stream',
        size: stored.size,
        sha256: stored.sha256,
        createdOn: new Date().toISOString(),
        userId,
        blobKey: stored.key,
      }
      assert.equal(await db.store.insertAttachment(record), true)
      return { ...record, bytes }
    }

    const run = async (store = db.store) => {
      const reports: string[] = []
      const summary = await migrateAttachments({
        store,
        target: drivers.target,
        others: [drivers.source],
        report: (message) => reports.push(message),
      })
      return { summary, reports }
    }
    const counts = (summary: MigrationSummary, expected: Partial<MigrationSummary>) =>
      assert.deepEqual(summary, { moved: 0, verified: 0, skipped: 0, failed: 0, gone: 0, ...expected })
    const keyOf = async (id: string) => (await db.store.findAttachment(userId, id))?.blobKey

    it('moves every record’s bytes, checked, while a server on the old driver keeps serving them', async () => {
      const records = [await uploaded(), await uploaded(Buffer.alloc(0)), await uploaded(randomBytes(70_000))]
      // A server configured with the source, as it runs until its restart; and one restarted with the target.
      const before = withFallbacks(drivers.source, [async () => drivers.target])
      const restarted = withFallbacks(drivers.target, [async () => drivers.source])
      const { summary, reports } = await run()
      assert.deepEqual(reports, [])
      counts(summary, { moved: 3, verified: 3 })
      for (const record of records) {
        const key = (await keyOf(record._id))!
        assert.equal(key, blobKeyOf(drivers.target.driver, record._id, record.sha256))
        assert.deepEqual(await bytesOf((await drivers.target.read(key))!), record.bytes)
        assert.equal(await drivers.source.read(record.blobKey), undefined, 'the old bytes are erased')
        for (const server of [before, restarted]) {
          const served = await bytesOf((await server.read(key))!)
          assert.equal(sha256(served), record.sha256)
        }
      }
      const again = await run()
      counts(again.summary, { skipped: 3, verified: 3 })
    })

    it('finishes what a stopped run left: a copy not yet switched to, old bytes not yet erased', async () => {
      const copied = await uploaded()
      // Stopped after the copy: the target holds the bytes, the record still names the source's.
      const copy = await drivers.target.write(copied._id, sourceOf(copied.bytes), copied.size)
      const switched = await uploaded()
      // Stopped after the switch: the record names the target's copy, the source still holds the old bytes.
      const moved = await drivers.target.write(switched._id, sourceOf(switched.bytes), switched.size)
      assert.equal(await db.store.moveAttachmentBlob(switched._id, switched.blobKey, moved.key), true)

      const { summary } = await run()
      counts(summary, { skipped: 2, verified: 2 })
      assert.equal(await keyOf(copied._id), copy.key)
      for (const record of [copied, switched]) assert.equal(await drivers.source.read(record.blobKey), undefined)
    })

    it('leaves nothing of a record erased while its bytes were copied', async () => {
      const record = await uploaded()
      // The account deletes the file just before the switch, as the service does: record first, then its bytes.
      const racing = {
        ...db.store,
        moveAttachmentBlob: async (id: string, from: string, to: string) => {
          await db.store.deleteAttachment(userId, id)
          await withFallbacks(drivers.source, [async () => drivers.target]).remove(from)
          return db.store.moveAttachmentBlob(id, from, to)
        },
      }
      const { summary } = await run(racing)
      counts(summary, { gone: 1 })
      const targetKey = blobKeyOf(drivers.target.driver, record._id, record.sha256)
      assert.equal(await drivers.target.read(targetKey), undefined, 'the copy is erased')
      assert.equal(await drivers.source.read(record.blobKey), undefined)
    })

    it('fails, and keeps the record where it is, when the bytes differ from the record or are nowhere', async () => {
      const spoiled = await uploaded(Buffer.from('the bytes as uploaded'))
      // The record says other bytes than those stored: a file changed on disk, a row edited by hand.
      await db.sql('UPDATE attachments SET sha256 = ? WHERE id = ?', ['0'.repeat(64), spoiled._id])
      const missing = await uploaded()
      await drivers.source.remove(missing.blobKey)

      const { summary, reports } = await run()
      counts(summary, { failed: 2 })
      assert.equal(reports.length, 2)
      assert.match(reports.join('\n'), new RegExp(`attachment ${spoiled._id}: ${drivers.source.driver} holds 21 bytes`))
      assert.match(reports.join('\n'), new RegExp(`attachment ${missing._id}: its bytes .* are in none of the drivers`))
      assert.equal(await keyOf(spoiled._id), spoiled.blobKey)
      assert.deepEqual(await bytesOf((await drivers.source.read(spoiled.blobKey))!), spoiled.bytes)
      assert.equal(await drivers.target.read(blobKeyOf(drivers.target.driver, spoiled._id, '0'.repeat(64))), undefined)
    })

    it('fails on bytes already on the target that differ from the record, and leaves both as they are', async () => {
      const record = await uploaded()
      await drivers.spoilTarget(record._id, record.sha256, Buffer.from('not these'))
      const { summary, reports } = await run()
      counts(summary, { failed: 1 })
      assert.match(reports[0]!, new RegExp(`attachment ${record._id}: ${drivers.target.driver} holds 9 bytes`))
      assert.equal(await keyOf(record._id), record.blobKey)
      assert.deepEqual(await bytesOf((await drivers.source.read(record.blobKey))!), record.bytes)
    })
  })
}
