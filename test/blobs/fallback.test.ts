// The configured blob storage with the other drivers behind it (src/blobs/fallback.ts), and the keys each driver gives
// a record's bytes (src/blobs/keys.ts), which `attachments migrate` looks for before writing.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { diskBlobs } from '../../src/blobs/disk.js'
import { withFallbacks } from '../../src/blobs/fallback.js'
import { blobKeyOf } from '../../src/blobs/keys.js'
import { POSTGRES_BLOB_TABLES, postgresBlobs } from '../../src/blobs/postgres.js'
import { BlobKeyError, type BlobStorage } from '../../src/blobs/types.js'
import { bytesOf, newBlobId, sha256Of, sourceOf } from '../support/blob-contract.js'
import { createTestDatabase, serviceAvailable } from '../support/services.js'
import { tempDir } from '../support/temp.js'

/** A driver that counts its openings and closings. */
function counted(blobs: BlobStorage) {
  const counts = { opened: 0, closed: 0 }
  return {
    counts,
    open: async (): Promise<BlobStorage> => {
      counts.opened++
      return {
        ...blobs,
        close: async () => {
          counts.closed++
        },
      }
    },
  }
}

describe('blob storage with fallbacks', () => {
  let dir: ReturnType<typeof tempDir>
  let configured: BlobStorage
  let other: BlobStorage
  before(() => {
    dir = tempDir('notes-fallback-')
    configured = diskBlobs(join(dir.path, 'configured'))
    other = diskBlobs(join(dir.path, 'other'))
  })
  after(() => dir.remove())

  it('is the configured driver itself when there is no other', () => {
    assert.equal(withFallbacks(configured, []), configured)
  })

  it('reads a key the configured driver lacks from the others, opened once and only then', async () => {
    const behind = counted(other)
    const blobs = withFallbacks(configured, [behind.open])
    const mine = await blobs.write(newBlobId(), sourceOf(Buffer.from('written here')), 100)
    assert.deepEqual(await bytesOf((await configured.read(mine.key))!), Buffer.from('written here'))
    assert.deepEqual(await bytesOf((await blobs.read(mine.key))!), Buffer.from('written here'))
    assert.equal(behind.counts.opened, 0, 'a key the configured driver holds opens no other')

    const moved = await other.write(newBlobId(), sourceOf(Buffer.from('moved elsewhere')), 100)
    assert.deepEqual(await bytesOf((await blobs.read(moved.key))!), Buffer.from('moved elsewhere'))
    assert.deepEqual(await bytesOf((await blobs.read(moved.key, { start: 6, end: 14 }))!), Buffer.from('elsewhere'))
    assert.equal(await blobs.read(blobKeyOf('disk', newBlobId(), sha256Of(Buffer.from('none')))), undefined)
    assert.equal(behind.counts.opened, 1)

    const listed: string[] = []
    for await (const blob of blobs.list()) listed.push(blob.key)
    assert.deepEqual(listed, [mine.key], 'the listing is the configured driver’s alone')

    await blobs.remove(moved.key)
    assert.equal(await other.read(moved.key), undefined, 'a removal reaches every driver')
    await blobs.close()
    assert.equal(behind.counts.closed, 1)
  })

  it('passes by a driver that never makes such a key, and refuses a key no driver makes', async () => {
    const keyedById: BlobStorage = {
      ...other,
      read: async (key) => (/^[0-9a-f]{24}$/.test(key) ? sourceOf(Buffer.from(`bytes of ${key}`)) : undefined),
      remove: async () => {},
    }
    const blobs = withFallbacks(configured, [async () => keyedById])
    const id = newBlobId()
    assert.deepEqual(await bytesOf((await blobs.read(id))!), Buffer.from(`bytes of ${id}`))
    const nobodys = withFallbacks(configured, [async () => other])
    await assert.rejects(nobodys.read('../../etc/passwd'), BlobKeyError)
    await assert.rejects(nobodys.remove('../../etc/passwd'), BlobKeyError)
  })

  it('opens a driver that failed to open again at the next lookup', async () => {
    let tries = 0
    const blobs = withFallbacks(configured, [
      async () => {
        tries++
        if (tries === 1) throw new Error('not reachable yet')
        return other
      },
    ])
    const stored = await other.write(newBlobId(), sourceOf(Buffer.from('later')), 100)
    await assert.rejects(blobs.read(stored.key), /not reachable yet/)
    assert.deepEqual(await bytesOf((await blobs.read(stored.key))!), Buffer.from('later'))
    assert.equal(tries, 2)
  })
})

describe('blob keys known from the record', () => {
  it('are the keys the disk driver writes', async () => {
    const dir = tempDir('notes-keys-')
    try {
      const blobs = diskBlobs(dir.path)
      const bytes = Buffer.from('content-addressed')
      const id = newBlobId()
      assert.equal((await blobs.write(id, sourceOf(bytes), 100)).key, blobKeyOf('disk', id, sha256Of(bytes)))
    } finally {
      dir.remove()
    }
  })

  if (serviceAvailable('postgresql')) {
    it('are the keys the PostgreSQL driver writes', async () => {
      const database = await createTestDatabase()
      const pool = new pg.Pool({ connectionString: database.url, max: 2 })
      pool.on('error', () => {})
      try {
        await pool.query(POSTGRES_BLOB_TABLES)
        const bytes = Buffer.from('by id')
        const id = newBlobId()
        const stored = await postgresBlobs(pool).write(id, sourceOf(bytes), 100)
        assert.equal(stored.key, blobKeyOf('postgresql', id, sha256Of(bytes)))
      } finally {
        await pool.end()
        await database.drop()
      }
    })
  }

  it('are the id for S3, the name its objects get', () => {
    const id = newBlobId()
    assert.equal(blobKeyOf('s3', id, sha256Of(Buffer.from('x'))), id)
  })
})
