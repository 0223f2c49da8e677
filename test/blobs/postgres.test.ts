// The PostgreSQL blob driver on a database of its own: the shared suite, and what only rows have: chunks, a
// transaction per write, pages of the listing.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import pg from 'pg'
import { POSTGRES_BLOB_TABLES, POSTGRES_CHUNK_BYTES, postgresBlobs } from '../../src/blobs/postgres.js'
import { BlobTooLargeError, type BlobStorage } from '../../src/blobs/types.js'
import { blobContract, bytesOf, failingSource, newBlobId, sourceOf } from '../support/blob-contract.js'
import { type TestDatabase, createTestDatabase, serviceAvailable } from '../support/services.js'

/** A database with the blob tables, and a pool as the service makes one: a statement_timeout on each connection. */
async function openDatabase(): Promise<{ pool: pg.Pool; close(): Promise<void> }> {
  const database: TestDatabase = await createTestDatabase()
  const pool = new pg.Pool({ connectionString: database.url, max: 5, statement_timeout: 5000 })
  pool.on('error', () => {})
  await pool.query(POSTGRES_BLOB_TABLES)
  await pool.query(POSTGRES_BLOB_TABLES) // as a migration run twice
  return {
    pool,
    async close() {
      await pool.end()
      await database.drop()
    },
  }
}

/** Chunk rows of no blob: what an unfinished write would leave. */
async function strayChunks(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM attachment_chunks c
     WHERE NOT EXISTS (SELECT 1 FROM attachment_blobs b WHERE b.key = c.key)`,
  )
  return rows[0]?.n ?? 0
}

if (serviceAvailable('postgresql')) {
  blobContract({
    name: 'postgresql',
    unitBytes: POSTGRES_CHUNK_BYTES,
    keyOf: (id) => id,
    async open() {
      const database = await openDatabase()
      return {
        blobs: postgresBlobs(database.pool),
        unfinished: () => strayChunks(database.pool),
        close: () => database.close(),
      }
    },
  })

  describe('postgresql blobs: rows', { timeout: 120_000 }, () => {
    let database: Awaited<ReturnType<typeof openDatabase>>
    let blobs: BlobStorage
    before(async () => {
      database = await openDatabase()
      blobs = postgresBlobs(database.pool, { listPageRows: 2 })
    })
    after(() => database?.close())

    it('stores full chunks and then the remainder, with the blob’s row', async () => {
      const bytes = randomBytes(2 * POSTGRES_CHUNK_BYTES + 10)
      const stored = await blobs.write(newBlobId(), sourceOf(bytes), bytes.length)
      const { rows } = await database.pool.query<{ seq: number; n: number }>(
        'SELECT seq, length(data) AS n FROM attachment_chunks WHERE key = $1 ORDER BY seq',
        [stored.key],
      )
      assert.deepEqual(rows, [
        { seq: 0, n: POSTGRES_CHUNK_BYTES },
        { seq: 1, n: POSTGRES_CHUNK_BYTES },
        { seq: 2, n: 10 },
      ])
      const blobRows = await database.pool.query('SELECT size, sha256 FROM attachment_blobs WHERE key = $1', [
        stored.key,
      ])
      assert.deepEqual(blobRows.rows, [{ size: String(bytes.length), sha256: stored.sha256 }])
    })

    it('rolls back every chunk of a write that fails after some were inserted', async () => {
      const bytes = randomBytes(2 * POSTGRES_CHUNK_BYTES + 10)
      await assert.rejects(blobs.write(newBlobId(), sourceOf(bytes), 2 * POSTGRES_CHUNK_BYTES), BlobTooLargeError)
      await assert.rejects(blobs.write(newBlobId(), failingSource(bytes, new Error('gone')), bytes.length), /gone/)
      assert.equal(await strayChunks(database.pool), 0)
    })

    it('errs a read whose blob is removed before its chunks are fetched', async () => {
      const bytes = randomBytes(2 * POSTGRES_CHUNK_BYTES)
      const stored = await blobs.write(newBlobId(), sourceOf(bytes), bytes.length)
      const stream = await blobs.read(stored.key)
      assert.ok(stream)
      await blobs.remove(stored.key)
      await assert.rejects(bytesOf(stream), /removed while it was read/)
    })

    it('lists page by page, every blob once', async () => {
      const { rows: before } = await database.pool.query<{ key: string }>('SELECT key FROM attachment_blobs')
      const written = new Set(before.map((row) => row.key))
      for (let i = 0; i < 5; i += 1) {
        written.add((await blobs.write(newBlobId(), sourceOf(randomBytes(i)), 10)).key)
      }
      const listed: string[] = []
      for await (const blob of blobs.list()) listed.push(blob.key)
      assert.deepEqual(listed.sort(), [...written].sort())
    })

    it('has nothing unfinished to remove', async () => {
      assert.equal(await blobs.removeUnfinished(new Date(Date.now() + 60_000)), 0)
    })
  })
}
