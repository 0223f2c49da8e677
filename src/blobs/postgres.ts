// Blobs as rows of PostgreSQL: the bytes in chunks of POSTGRES_CHUNK_BYTES (attachment_chunks), then one row that
// says the blob is whole (attachment_blobs), all written in one transaction. Until its COMMIT nothing of a write is
// visible, and a write that fails, passes its limit or dies with its process (the server rolls back a transaction
// whose connection ends) leaves nothing at all. The key is the attachment's id.
//
// A write holds one connection of `pool` for as long as its source takes to arrive: the caller gives the driver a pool
// of its own, sized for the uploads it lets run at once, so slow uploads never starve other queries. Each statement
// moves at most a few chunks, well within a statement_timeout; an idle_in_transaction_session_timeout, though, ends a
// write whose client sends slower than it allows. The pool is the caller's: close() leaves it open.
import { Readable } from 'node:stream'
import type pg from 'pg'
import { to as copyTo } from 'pg-copy-streams'
import { CopyValues } from './copy-values.js'
import { ByteMeter, checkBlobId } from './metering.js'
import { BlobKeyError, type BlobStorage, type ListedBlob, BLOB_ID } from './types.js'

/**
 * The tables the driver needs, for the store's migrations to create (each statement may run again). The chunks are
 * kept out of line and uncompressed (STORAGE EXTERNAL): attachments are mostly compressed already, and a range read
 * then fetches only the pages it needs.
 */
export const POSTGRES_BLOB_TABLES = `
CREATE TABLE IF NOT EXISTS attachment_blobs (
  key TEXT PRIMARY KEY,
  size BIGINT NOT NULL,
  sha256 TEXT NOT NULL,
  written_on TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS attachment_chunks (
  key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  data BYTEA NOT NULL,
  PRIMARY KEY (key, seq)
);
ALTER TABLE attachment_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
`

/** The bytes of every chunk but a blob's last: chunk `seq` holds bytes from seq × this on. Fixed for stored blobs. */
export const POSTGRES_CHUNK_BYTES = 2 ** 20
/** Chunks one read fetches: a few MiB per statement, and no more than that held in memory. */
const CHUNKS_PER_QUERY = 4

/**
 * The COPY that sends chunks `from`..`to` of the blob `key`, each cut to the bytes `start`..`end` of the blob
 * (`first` and `last` are positions within the chunk, bigint: a blob may pass 2 GiB), in COPY's binary format: the
 * bytes as they are, where a query's answer would carry them as hex text, twice their size, to decode after. A chunk
 * wholly within the range is sent as it is, which the server does far faster than a substring of it
 * (docs/performance.md, "Attachments"). COPY takes no parameters, so the values are written into the statement: the
 * key matches BLOB_ID (checked here) and the rest are integers.
 */
function copyChunks(key: string, start: number, end: number, from: number, to: number): string {
  checkKey(key)
  for (const n of [start, end, from, to]) if (!Number.isSafeInteger(n)) throw new Error(`Not a position: ${n}`)
  return `COPY (
SELECT CASE WHEN first = 0 AND last + 1 >= octet_length(data) THEN data
  ELSE substring(data FROM (first + 1)::int FOR (last - first + 1)::int) END AS data
FROM (
  SELECT seq, data,
    greatest(${start}::bigint - seq::bigint * ${POSTGRES_CHUNK_BYTES}, 0) AS first,
    least(${end}::bigint - seq::bigint * ${POSTGRES_CHUNK_BYTES}, ${POSTGRES_CHUNK_BYTES - 1}) AS last
  FROM attachment_chunks
  WHERE key = '${key}' AND seq BETWEEN ${from} AND ${to}
) AS chunk
ORDER BY seq
) TO STDOUT (FORMAT binary)`
}

export interface PostgresBlobOptions {
  /** Rows per query of list(); small ones let a test see it page. */
  listPageRows?: number
}

function checkKey(key: string): void {
  if (!BLOB_ID.test(key)) throw new BlobKeyError(key)
}

export function postgresBlobs(pool: pg.Pool, options: PostgresBlobOptions = {}): BlobStorage {
  const pageRows = options.listPageRows ?? 1000

  /** Runs `work` in a transaction on one connection; a connection whose ROLLBACK failed is discarded, not reused. */
  async function inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect()
    let broken: Error | undefined
    try {
      await client.query('BEGIN')
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError))
      throw err
    } finally {
      client.release(broken)
    }
  }

  /** The values a one-column COPY sends; its connection is discarded, not reused, when the COPY fails. */
  async function copiedValues(statement: string): Promise<Buffer[]> {
    const client = await pool.connect()
    let broken: Error | undefined
    try {
      const values = new CopyValues()
      for await (const piece of client.query(copyTo(statement)) as AsyncIterable<Buffer>) values.push(piece)
      return values.end()
    } catch (err) {
      broken = err as Error
      throw err
    } finally {
      client.release(broken)
    }
  }

  /**
   * The bytes `start`..`end` (inclusive) of the blob `key`, a few chunks per COPY, only the chunks they lie in, and
   * of the first and last only the part within the range (out-of-line storage fetches just that part). Each COPY is
   * read whole and its connection given back before its bytes are sent on, so a slow client never holds one.
   */
  async function* chunksOf(key: string, start: number, end: number): AsyncGenerator<Buffer> {
    const last = Math.floor(end / POSTGRES_CHUNK_BYTES)
    const batch = async (from: number) => {
      const to = Math.min(from + CHUNKS_PER_QUERY - 1, last)
      const values = await copiedValues(copyChunks(key, start, end, from, to))
      if (values.length !== to - from + 1) throw new Error(`The blob ${key} was removed while it was read`)
      return values
    }
    // The next batch is read while this one is sent: the database and this process work at once.
    let from = Math.floor(start / POSTGRES_CHUNK_BYTES)
    let next: Promise<Buffer[]> | undefined = batch(from)
    try {
      while (next) {
        const values = await next
        from += CHUNKS_PER_QUERY
        next = from <= last ? batch(from) : undefined
        yield* values
      }
    } finally {
      // A reader that stops early leaves a batch under way: its failure then concerns no one.
      next?.catch(() => {})
    }
  }

  return {
    driver: 'postgresql',

    async write(id, source, limit) {
      try {
        checkBlobId(id)
        const meter = new ByteMeter(limit)
        return await inTransaction(async (client) => {
          let seq = 0
          const insert = (data: Buffer) =>
            client.query('INSERT INTO attachment_chunks (key, seq, data) VALUES ($1, $2, $3)', [id, seq++, data])
          // The bytes not yet in a chunk: less than one chunk's worth once each piece is handled.
          let held: Buffer[] = []
          let heldBytes = 0
          // Each piece is taken only once the chunks before it are inserted: the source waits meanwhile.
          for await (const piece of source) {
            const bytes = meter.add(piece)
            held.push(bytes)
            heldBytes += bytes.length
            while (heldBytes >= POSTGRES_CHUNK_BYTES) {
              const joined = Buffer.concat(held, heldBytes)
              await insert(joined.subarray(0, POSTGRES_CHUNK_BYTES))
              held = [joined.subarray(POSTGRES_CHUNK_BYTES)]
              heldBytes -= POSTGRES_CHUNK_BYTES
            }
          }
          if (heldBytes > 0) await insert(Buffer.concat(held, heldBytes))
          const sha256 = meter.sha256()
          // The time of this statement, not of the transaction's start: a long upload is written when it ends.
          await client.query(
            'INSERT INTO attachment_blobs (key, size, sha256, written_on) VALUES ($1, $2, $3, clock_timestamp())',
            [id, meter.size, sha256],
          )
          return { key: id, size: meter.size, sha256 }
        })
      } catch (err) {
        source.destroy()
        throw err
      }
    },

    async read(key, range) {
      checkKey(key)
      const { rows } = await pool.query<{ size: string }>('SELECT size FROM attachment_blobs WHERE key = $1', [key])
      const found = rows[0]
      if (!found) return undefined
      const size = Number(found.size)
      const start = range?.start ?? 0
      const end = Math.min(range?.end ?? size - 1, size - 1)
      return Readable.from(end >= start ? chunksOf(key, start, end) : [], { objectMode: false })
    },

    async remove(key) {
      checkKey(key)
      await inTransaction(async (client) => {
        await client.query('DELETE FROM attachment_blobs WHERE key = $1', [key])
        await client.query('DELETE FROM attachment_chunks WHERE key = $1', [key])
      })
    },

    async *list(): AsyncIterable<ListedBlob> {
      let after = ''
      for (;;) {
        const { rows } = await pool.query<{ key: string; size: string; written_on: Date }>(
          'SELECT key, size, written_on FROM attachment_blobs WHERE key > $1 ORDER BY key LIMIT $2',
          [after, pageRows],
        )
        for (const row of rows) yield { key: row.key, size: Number(row.size), writtenOn: row.written_on }
        const last = rows.at(-1)
        if (!last || rows.length < pageRows) return
        after = last.key
      }
    },

    // A write's rows exist only inside its transaction, which commits whole or not at all (a dead process's
    // connection ends, and the server rolls its transaction back): no write can be left half done.
    async removeUnfinished() {
      return 0
    },

    async close() {},
  }
}
