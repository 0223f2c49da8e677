// import --attachments DIR: the records of DIR/attachments.json and the bytes of DIR/<id>, after the users whose
// records they are and before the notes, whose writes make their links (migration 18's triggers). Each record's
// bytes are written to the configured blob storage, held to the record's size and checked against its SHA-256,
// before the record is: a record whose file is missing or differs is rejected with nothing kept. Ids are kept; a
// record already stored is skipped when it is the same and rejected as `conflicting _id` when it is not.
import { stat } from 'node:fs/promises'
import { createReadStream } from 'node:fs'
import { join } from 'node:path'
import type { AttachmentRecord } from '../attachment-shape.js'
import { blobKeyOf } from '../blobs/keys.js'
import { BlobTooLargeError, type BlobStorage } from '../blobs/types.js'
import { type ExportedAttachment, attachmentFromDocument } from './attachment-records.js'
import { ATTACHMENTS_FILE } from './attachments-export.js'
import type { RawRecord } from './json-splitter.js'
import { type ImportOptions, type PhaseSummary, conflictMessage, openPhase } from './phase.js'

/** Records written per store transaction: their bytes are written one by one before it. */
const BATCH = 100

const FIELDS = ['userId', 'name', 'type', 'size', 'sha256', 'createdOn'] as const

const differences = (stored: ExportedAttachment, incoming: ExportedAttachment): string[] =>
  FIELDS.filter((field) => stored[field] !== incoming[field])

const exists = (path: string) =>
  stat(path).then(
    (info) => info.isFile(),
    () => false,
  )

export async function importAttachments(
  dir: string,
  blobs: BlobStorage,
  options: ImportOptions,
): Promise<PhaseSummary> {
  const { store, progress } = options
  const { parsed, counts, reject } = await openPhase('attachments', 'attachment', join(dir, ATTACHMENTS_FILE), options)
  /** Written, by id, until their transaction commits: a record met twice in the file is compared with its first. */
  let batch = new Map<string, { raw: RawRecord; record: AttachmentRecord }>()

  /** Erases bytes this import wrote whose record was not inserted, unless a record names them after all. */
  const discard = async (key: string) => {
    if (!(await store.knownBlobKeys([key])).has(key)) await blobs.remove(key)
  }
  const alreadyStored = (raw: RawRecord, stored: ExportedAttachment, incoming: ExportedAttachment) => {
    const fields = differences(stored, incoming)
    if (fields.length === 0) counts.skipped++
    else reject(raw, 'conflicting _id', conflictMessage('attachment', incoming._id, fields))
  }
  const missingUser = (raw: RawRecord, incoming: ExportedAttachment) =>
    reject(
      raw,
      'missing user',
      `attachment ${incoming._id}: its user ${incoming.userId} does not exist (not in the users file, or rejected)`,
    )

  const flush = async () => {
    const written = [...batch.values()]
    batch = new Map()
    const outcomes = await store.importAttachments(written.map((w) => w.record))
    for (const [i, outcome] of outcomes.entries()) {
      const { raw, record } = written[i]!
      if (outcome === 'inserted') {
        counts.imported++
        continue
      }
      await discard(record.blobKey)
      // Stored since it was looked up, by someone else.
      const stored = outcome === 'exists' ? await store.attachmentById(record._id) : undefined
      if (stored) alreadyStored(raw, stored, record)
      else missingUser(raw, record)
    }
  }

  /** Writes the record's file into the blob storage: the key, or undefined once the record is rejected. */
  const writeBytes = async (raw: RawRecord, incoming: ExportedAttachment): Promise<string | undefined> => {
    const path = join(dir, incoming._id)
    if (!(await exists(path))) {
      reject(raw, 'missing file', `attachment ${incoming._id}: no file ${path}; not imported`)
      return undefined
    }
    // Bytes of an earlier run that stopped before their record was written: no record names this key, which holds
    // the id, and a driver is not promised to take a second write under one id.
    await blobs.remove(blobKeyOf(blobs.driver, incoming._id, incoming.sha256))
    const mismatch = (what: string) =>
      reject(
        raw,
        'sha256 mismatch',
        `attachment ${incoming._id}: ${path} holds ${what}, the record says ${incoming.size} bytes with sha256 ${incoming.sha256}; not imported`,
      )
    try {
      const stored = await blobs.write(incoming._id, createReadStream(path), incoming.size)
      if (stored.sha256 === incoming.sha256 && stored.size === incoming.size) return stored.key
      await blobs.remove(stored.key)
      mismatch(`${stored.size} bytes with sha256 ${stored.sha256}`)
    } catch (err) {
      if (!(err instanceof BlobTooLargeError)) throw err
      mismatch(`more than ${incoming.size} bytes`)
    }
    return undefined
  }

  for await (const [raw, incoming] of parsed(attachmentFromDocument, flush)) {
    const earlier = batch.get(incoming._id)?.record ?? (await store.attachmentById(incoming._id))
    if (earlier) {
      alreadyStored(raw, earlier, incoming)
      continue
    }
    if (!(await store.findUserById(incoming.userId))) {
      missingUser(raw, incoming)
      continue
    }
    const blobKey = await writeBytes(raw, incoming)
    if (blobKey === undefined) continue
    batch.set(incoming._id, { raw: { line: raw.line, index: raw.index }, record: { ...incoming, blobKey } })
    if (batch.size >= (options.batchSize ?? BATCH)) await flush()
  }
  await flush()
  progress.end(counts)
  return counts
}
