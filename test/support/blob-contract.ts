// The one suite every blob driver passes (src/blobs/types.ts): what a write keeps, what a failed one leaves (nothing),
// ranges, removal, listing and writes at once. Each test/blobs/<driver>.test.ts opens its driver and runs it.
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { PassThrough, Readable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import {
  BlobKeyError,
  type BlobStorage,
  BlobTooLargeError,
  type ByteRange,
  type StoredBlob,
} from '../../src/blobs/types.js'

export interface OpenedBlobs {
  blobs: BlobStorage
  /** Leftovers of unfinished writes the storage holds (temporary files, chunks of no blob); absent where unknowable. */
  unfinished?(): Promise<number>
  close(): Promise<void>
}

export interface BlobDriverCase {
  name: string
  /** The driver's unit: a chunk row, an upload part; sizes and ranges straddle it. */
  unitBytes: number
  /** The key the driver gives the bytes with this hash written for this id. */
  keyOf(id: string, sha256: string): string
  open(): Promise<OpenedBlobs>
}

export const newBlobId = (): string => randomBytes(12).toString('hex')
export const sha256Of = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex')

/** `bytes` in pieces of uneven sizes, as a network delivers them. */
export function piecesOf(bytes: Buffer): Buffer[] {
  const pieces: Buffer[] = []
  const sizes = [1, 1000, 65_536, 7, 40_000]
  for (let at = 0, i = 0; at < bytes.length; i += 1) {
    const size = sizes[i % sizes.length] as number
    pieces.push(bytes.subarray(at, at + size))
    at += size
  }
  return pieces
}

export const sourceOf = (bytes: Buffer): Readable => Readable.from(piecesOf(bytes), { objectMode: false })

/** Gives `bytes`, then fails with `failure`, or is destroyed without one (a client cut off) when it is undefined. */
export function failingSource(bytes: Buffer, failure?: Error): Readable {
  const pieces = piecesOf(bytes)
  return new Readable({
    read() {
      const piece = pieces.shift()
      if (piece) this.push(piece)
      else this.destroy(failure)
    },
  })
}

export async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk)
  return Buffer.concat(chunks)
}

export function blobContract(driverCase: BlobDriverCase): void {
  const unit = driverCase.unitBytes
  describe(`blob storage: ${driverCase.name}`, { timeout: 240_000 }, () => {
    let opened: OpenedBlobs
    let blobs: BlobStorage
    /** What the suite wrote and has not removed: what list() must show. */
    const held = new Map<string, StoredBlob>()

    before(async () => {
      opened = await driverCase.open()
      blobs = opened.blobs
    })
    after(async () => {
      await opened?.close()
    })

    async function put(bytes: Buffer, id = newBlobId()): Promise<StoredBlob> {
      const stored = await blobs.write(id, sourceOf(bytes), bytes.length)
      held.set(stored.key, stored)
      return stored
    }

    async function read(key: string, range?: ByteRange): Promise<Buffer | undefined> {
      const stream = await blobs.read(key, range)
      return stream && bytesOf(stream)
    }

    async function listed(): Promise<Map<string, number>> {
      const sizes = new Map<string, number>()
      for await (const blob of blobs.list()) {
        assert.ok(!Number.isNaN(blob.writtenOn.getTime()), `${blob.key} has its time`)
        assert.ok(!sizes.has(blob.key), `${blob.key} is listed once`)
        sizes.set(blob.key, blob.size)
      }
      return sizes
    }

    /** The write of `bytes` under `id` failed: nothing listed, readable or left unfinished. */
    async function keptNothing(id: string, bytes: Buffer, before: Map<string, number>): Promise<void> {
      assert.deepEqual(await listed(), before)
      assert.equal(await blobs.read(driverCase.keyOf(id, sha256Of(bytes))), undefined)
      if (opened.unfinished) assert.equal(await opened.unfinished(), 0, 'no leftovers of the write')
    }

    it('keeps bytes of several sizes whole, with their size and SHA-256', async () => {
      for (const size of [0, 1, unit, 2 * unit + 1234, 5 * 2 ** 20 + 1234]) {
        const bytes = randomBytes(size)
        const id = newBlobId()
        const stored = await put(bytes, id)
        assert.deepEqual(stored, { key: driverCase.keyOf(id, sha256Of(bytes)), size, sha256: sha256Of(bytes) })
        const back = await read(stored.key)
        assert.ok(back, `${size} bytes read back`)
        assert.equal(back.length, size)
        assert.ok(back.equals(bytes), `${size} bytes read back as written`)
      }
    })

    it('reads ranges: the first byte, the last, a span across a unit boundary, the whole', async () => {
      const bytes = randomBytes(2 * unit + 1234)
      const { key } = await put(bytes)
      const last = bytes.length - 1
      for (const [start, end] of [
        [0, 0],
        [last, last],
        [unit - 5, unit + 5],
        [unit - 1, unit],
        [unit, 2 * unit],
        [0, last],
      ] as Array<[number, number]>) {
        const slice = await read(key, { start, end })
        assert.ok(slice?.equals(bytes.subarray(start, end + 1)), `bytes ${start}-${end}`)
      }
      // Mostly short spans near the unit boundaries, where a driver cuts and joins; now and then any span at all.
      const position = fc.integer({ min: 0, max: last })
      const anySpan = fc.tuple(position, position).map(([a, b]) => (a <= b ? [a, b] : [b, a]))
      const nearBoundary = fc
        .tuple(fc.constantFrom(unit, 2 * unit), fc.integer({ min: -3000, max: 3000 }), fc.nat(6000))
        .map(([boundary, offset, length]) => {
          const start = Math.min(boundary + offset, last)
          return [start, Math.min(start + length, last)]
        })
      await fc.assert(
        fc.asyncProperty(
          fc.oneof({ arbitrary: anySpan, weight: 1 }, { arbitrary: nearBoundary, weight: 5 }),
          async (span) => {
            const [start, end] = span as [number, number]
            const slice = await read(key, { start, end })
            assert.ok(slice?.equals(bytes.subarray(start, end + 1)), `bytes ${start}-${end}`)
          },
        ),
        { numRuns: 40 },
      )
    })

    it('reads any range of any bytes as their slice', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc
            .uint8Array({ minLength: 1, maxLength: 5000 })
            .chain((array) =>
              fc.tuple(
                fc.constant(Buffer.from(array)),
                fc.integer({ min: 0, max: array.length - 1 }),
                fc.integer({ min: 0, max: array.length - 1 }),
              ),
            ),
          async ([bytes, a, b]) => {
            const [start, end] = a <= b ? [a, b] : [b, a]
            const { key } = await put(bytes)
            const slice = await read(key, { start, end })
            assert.ok(slice?.equals(bytes.subarray(start, end + 1)), `bytes ${start}-${end} of ${bytes.length}`)
          },
        ),
        { numRuns: 25 },
      )
    })

    it('refuses a write past its limit and keeps nothing of it', async () => {
      for (const [size, limit] of [
        [5000, 1000],
        [1001, 1000],
        [unit + 200_000, unit + 100_000],
      ] as Array<[number, number]>) {
        const before = await listed()
        const bytes = randomBytes(size)
        const id = newBlobId()
        await assert.rejects(blobs.write(id, sourceOf(bytes), limit), (err: unknown) => {
          assert.ok(err instanceof BlobTooLargeError, String(err))
          assert.equal(err.limit, limit)
          return true
        })
        await keptNothing(id, bytes, before)
      }
    })

    it('keeps a write of exactly its limit', async () => {
      const bytes = randomBytes(3000)
      const stored = await blobs.write(newBlobId(), sourceOf(bytes), 3000)
      held.set(stored.key, stored)
      assert.equal(stored.size, 3000)
    })

    it('keeps nothing of a write whose source fails midway, and rejects with its error', async () => {
      const before = await listed()
      const bytes = randomBytes(unit + 50_000)
      const id = newBlobId()
      const failure = new Error('the client went away')
      const source = failingSource(bytes, failure)
      await assert.rejects(blobs.write(id, source, 10 * unit), (err) => err === failure)
      assert.ok(source.destroyed)
      await keptNothing(id, bytes, before)
    })

    it('keeps nothing of a write whose source is cut off', async () => {
      const before = await listed()
      const bytes = randomBytes(70_000)
      const id = newBlobId()
      await assert.rejects(blobs.write(id, failingSource(bytes), 10 * unit))
      await keptNothing(id, bytes, before)
    })

    it('shows nothing of a write in progress', async () => {
      const before = await listed()
      const bytes = randomBytes(unit + 100_000)
      const id = newBlobId()
      const source = new PassThrough()
      const writing = blobs.write(id, source, bytes.length)
      // The driver has taken these bytes once the source drains.
      if (!source.write(bytes.subarray(0, unit + 10))) await once(source, 'drain')
      assert.deepEqual(await listed(), before)
      assert.equal(await blobs.read(driverCase.keyOf(id, sha256Of(bytes))), undefined)
      source.end(bytes.subarray(unit + 10))
      const stored = await writing
      held.set(stored.key, stored)
      assert.ok((await read(stored.key))?.equals(bytes))
    })

    it('removes a blob: it reads as absent, and removing it again is no error', async () => {
      const stored = await put(randomBytes(10_000))
      await blobs.remove(stored.key)
      held.delete(stored.key)
      assert.equal(await blobs.read(stored.key), undefined)
      assert.equal(await blobs.read(stored.key, { start: 0, end: 0 }), undefined)
      await blobs.remove(stored.key)
      assert.equal((await listed()).has(stored.key), false)
    })

    it('keeps every blob of writes made at once', async () => {
      const written = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const bytes = randomBytes(1000 + i * 37_000)
          return { bytes, stored: await put(bytes) }
        }),
      )
      for (const { bytes, stored } of written) {
        assert.equal(stored.sha256, sha256Of(bytes))
        assert.ok((await read(stored.key))?.equals(bytes))
      }
    })

    it('lists exactly the blobs written and not removed', async () => {
      assert.ok(held.size > 30)
      const expected = new Map([...held].map(([key, stored]) => [key, stored.size]))
      assert.deepEqual(await listed(), expected)
    })

    it('refuses ids and keys of shapes it never makes', async () => {
      for (const id of ['', '../escape', 'a/b', 'a.b', 'x'.repeat(65), 'ä']) {
        const source = sourceOf(Buffer.from('bytes'))
        await assert.rejects(blobs.write(id, source, 100), BlobKeyError, JSON.stringify(id))
        assert.ok(source.destroyed, `the source of ${JSON.stringify(id)} is destroyed`)
      }
      for (const key of ['', '../escape', '/etc/passwd', 'a/../../b']) {
        await assert.rejects(blobs.read(key), BlobKeyError, JSON.stringify(key))
        await assert.rejects(blobs.remove(key), BlobKeyError, JSON.stringify(key))
      }
    })

    it('keeps every finished blob through removeUnfinished', async () => {
      const before = await listed()
      await blobs.removeUnfinished(new Date(Date.now() + 60_000))
      assert.deepEqual(await listed(), before)
    })
  })
}
