// export --attachments DIR: DIR/attachments.json, the records written as the other files are, and one file per
// attachment named by its id, holding its bytes as stored. Each file is written under a temporary name, checked
// against the record's SHA-256 and size, and only then given its name: a file named by an id is always whole and
// right. A record whose bytes are missing or differ is left out of attachments.json and reported.
import { mkdir, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import type { AttachmentRecord } from '../attachment-shape.js'
import { BlobKeyError, type BlobStorage } from '../blobs/types.js'
import type { TransferStore } from '../store/types.js'
import { attachmentToEjson } from './attachment-records.js'
import { type ExportFormat, PAGE_SIZE, paged, render, write } from './export-pages.js'
import { describeBytes, sameBytes, writeMeasured } from './hashed-copy.js'
import type { EjsonMode } from './records.js'

/** The records' file in an attachments directory; every other file there is named by an attachment's id. */
export const ATTACHMENTS_FILE = 'attachments.json'

export interface AttachmentsOut {
  dir: string
  /** Where the bytes are read from: the configured storage, which also reads from the others it can open. */
  blobs: BlobStorage
  /** Told of each record left out, with why. */
  report: (message: string) => void
}

/** Writes the record's bytes to DIR/<id>: why not, or undefined once it is there. */
async function writeBytes(out: AttachmentsOut, record: AttachmentRecord): Promise<string | undefined> {
  let bytes: Readable | undefined
  try {
    bytes = await out.blobs.read(record.blobKey)
  } catch (err) {
    if (!(err instanceof BlobKeyError)) throw err
    return `its bytes (${record.blobKey}) are in a blob storage this configuration does not open`
  }
  if (!bytes) return 'its bytes are missing from the blob storage'
  const path = join(out.dir, record._id)
  const partial = `${path}.partial`
  try {
    const found = await writeMeasured(bytes, partial)
    if (!sameBytes(found, record))
      return `the blob storage holds ${describeBytes(found)}, the record says ${describeBytes(record)}`
    await rename(partial, path)
    return undefined
  } finally {
    await rm(partial, { force: true })
  }
}

/** Writes the attachments (only userId's when given): how many, and how many were left out. */
export async function exportAttachments(
  store: TransferStore,
  out: AttachmentsOut,
  options: { userId: string | undefined; format: ExportFormat; mode: EjsonMode },
): Promise<{ written: number; leftOut: number }> {
  await mkdir(out.dir, { recursive: true })
  let written = 0
  let leftOut = 0
  const pages = paged<AttachmentRecord>((after) => store.attachmentsAfter(after?._id, PAGE_SIZE, options.userId))
  async function* withBytes(): AsyncGenerator<AttachmentRecord[]> {
    for await (const page of pages) {
      const kept: AttachmentRecord[] = []
      for (const record of page) {
        const problem = await writeBytes(out, record)
        if (problem === undefined) kept.push(record)
        else {
          leftOut++
          out.report(`attachment ${record._id} (${record.name}) left out: ${problem}`)
        }
      }
      yield kept
    }
  }
  await write(
    join(out.dir, ATTACHMENTS_FILE),
    render(
      withBytes(),
      (record) => attachmentToEjson(record, options.mode),
      options.format,
      () => written++,
    ),
  )
  return { written, leftOut }
}
