// The SHA-256 and size of bytes as they pass: what export, backup and the migration check against a record.
import { createHash } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { pipeline } from 'node:stream/promises'

export interface Measured {
  sha256: string
  size: number
}

/** Reads `bytes` to their end. */
export async function measure(bytes: AsyncIterable<Buffer>): Promise<Measured> {
  const hash = createHash('sha256')
  let size = 0
  for await (const chunk of bytes) {
    hash.update(chunk)
    size += chunk.length
  }
  return { sha256: hash.digest('hex'), size }
}

/** Writes `bytes` to a new file at `path` (an existing one is replaced). */
export async function writeMeasured(bytes: AsyncIterable<Buffer>, path: string): Promise<Measured> {
  const hash = createHash('sha256')
  let size = 0
  await pipeline(
    bytes,
    async function* (source: AsyncIterable<Buffer>) {
      for await (const chunk of source) {
        hash.update(chunk)
        size += chunk.length
        yield chunk
      }
    },
    createWriteStream(path),
  )
  return { sha256: hash.digest('hex'), size }
}

/** How a record's bytes are named in messages. */
export const describeBytes = (found: Measured) => `${found.size} bytes with sha256 ${found.sha256}`

/** Do the bytes found match the record's. */
export const sameBytes = (found: Measured | undefined, record: Measured): boolean =>
  found !== undefined && found.sha256 === record.sha256 && found.size === record.size
