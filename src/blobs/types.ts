// Where an attachment's bytes live: one narrow, streaming interface with a driver per place (disk.ts, postgres.ts,
// s3.ts), chosen by open.ts. The records that name the bytes are the Store's (store/attachments.ts); a driver knows
// keys, bytes and nothing of accounts or notes (docs/attachments.md, "Storage").
import type { Readable } from 'node:stream'

export type BlobDriverName = 'disk' | 'postgresql' | 's3'

/** What a finished write stored. */
export interface StoredBlob {
  /** Where the driver keeps the bytes: what read and remove take, and what the attachment's record keeps. */
  key: string
  size: number
  /** Lower-case hex SHA-256 of the bytes stored. */
  sha256: string
}

/** Inclusive byte positions, as HTTP's Range counts them. */
export interface ByteRange {
  start: number
  end: number
}

/** A key a driver holds, for the sweep of bytes no record names and for moving between drivers. */
export interface ListedBlob {
  key: string
  size: number
  writtenOn: Date
}

/**
 * What an attachment id may be, as `write` takes it: letters, digits, '-' and '_', 1 to 64 of them. The drivers
 * build keys, file names and object names from it, so nothing else gets that far.
 */
export const BLOB_ID = /^[A-Za-z0-9_-]{1,64}$/

/** A write refused past its byte limit: nothing of it is kept. */
export class BlobTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The file is larger than ${limit} bytes`)
    this.name = 'BlobTooLargeError'
  }
}

/** An id or key of a shape the driver never makes (a path out of its directory, say): refused before any use. */
export class BlobKeyError extends Error {
  constructor(readonly key: string) {
    super(`Not a blob key or id of this driver: ${JSON.stringify(key.slice(0, 200))}`)
    this.name = 'BlobKeyError'
  }
}

export interface BlobStorage {
  readonly driver: BlobDriverName
  /**
   * Streams `source` into a new blob for the attachment `id`, hashing as it goes; the bytes are never held whole in
   * memory. It resolves only once the blob is durable and readable in full; before that no read can see any of it.
   * When `source` fails or ends early (destroyed), or passes `limit` bytes (BlobTooLargeError), it rejects and keeps
   * nothing readable; whenever it rejects, `source` is destroyed. `id` matches BLOB_ID (BlobKeyError otherwise) and
   * is written once: the drivers do not promise what a second write under the same id does.
   */
  write(id: string, source: Readable, limit: number): Promise<StoredBlob>
  /**
   * The bytes under `key`, or those of `range` (within the blob: callers check); undefined when there is no such blob.
   * A key of a shape the driver never makes rejects with BlobKeyError, here and in remove.
   */
  read(key: string, range?: ByteRange): Promise<Readable | undefined>
  /** Erases the blob; erasing an absent one is not an error. */
  remove(key: string): Promise<void>
  /** Every finished blob held (never a write in progress), and nothing of a shape the driver never makes. */
  list(): AsyncIterable<ListedBlob>
  /**
   * Erases the leftovers of writes that never finished (a process killed mid-write) begun before `before`, and
   * answers how many it erased. `before` lies further back than the longest write lasts: a write begun before it and
   * still running may be erased too (an S3 upload is dated by its start).
   */
  removeUnfinished(before: Date): Promise<number>
  close(): Promise<void>
}
