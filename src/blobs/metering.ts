// Counting and hashing the bytes of a write as they pass, the one thing every driver does the same way.
import { createHash } from 'node:crypto'
import { BLOB_ID, BlobKeyError, BlobTooLargeError } from './types.js'

/** Refuses an attachment id the drivers cannot build keys from. */
export function checkBlobId(id: string): void {
  if (!BLOB_ID.test(id)) throw new BlobKeyError(id)
}

/** The size and SHA-256 of the bytes a write has taken so far, held to its limit. */
export class ByteMeter {
  size = 0
  /** Set once the bytes passed the limit: the write's answer is BlobTooLargeError, whatever else failed after. */
  tooLarge = false
  readonly #hash = createHash('sha256')

  constructor(readonly limit: number) {}

  /** Counts and hashes `chunk`, and gives it back as a Buffer; throws BlobTooLargeError once past the limit. */
  add(chunk: unknown): Buffer {
    if (!(chunk instanceof Uint8Array)) throw new TypeError('A blob source yields bytes, not strings or objects')
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    this.size += bytes.length
    if (this.size > this.limit) {
      this.tooLarge = true
      throw new BlobTooLargeError(this.limit)
    }
    this.#hash.update(bytes)
    return bytes
  }

  /** The lower-case hex SHA-256 of everything added; call once, at the end. */
  sha256(): string {
    return this.#hash.digest('hex')
  }
}
