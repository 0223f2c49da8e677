// Attachments' rules, once for every store and blob driver (docs/attachments.md): an upload streams into the blob
// storage while its type is read from its first bytes; its record, held to the account's quota, is written only once
// the bytes are durable, and the bytes of a record that could not be written are erased again. What the record names
// is served only to its owner.
import { Readable } from 'node:stream'
import { fileTypeFromBuffer } from 'file-type'
import { type AttachmentRecord, attachmentAnswer } from '../attachment-shape.js'
import { BlobTooLargeError, type BlobStorage, type ByteRange } from '../blobs/types.js'
import type { AttachmentConfig } from '../config.js'
import { ContractError, attachmentNotFound, attachmentQuotaMessage, attachmentTooLargeMessage } from '../errors.js'
import { AttachmentQuotaExceededError, SessionEndedError, type Store } from '../store/types.js'
import { storedName, storedType } from './attachment-files.js'
import { isWellFormedId, newId } from './ids.js'
import type { ThumbnailSource } from './thumbnails.js'

const MB = 2 ** 20

/** The bytes file-type reads to tell a type (its own sample size). */
const SAMPLE_BYTES = 4100

/** How an upload ended, for the metrics: a refused one is a 400 (not a one-file form, cut off). */
export type UploadOutcome = 'stored' | 'too_large' | 'over_quota' | 'refused' | 'failed'

/** What the attachment endpoints record (plugins/metrics/hooks.ts); each is a no-op without metrics. */
export interface AttachmentMetrics {
  /** An upload's end; `bytes`: what was stored, 0 unless stored. */
  uploaded(outcome: UploadOutcome, bytes: number): void
  /** A file answer with a body (200 or 206): the bytes of that body. */
  downloaded(bytes: number): void
  thumbnail(source: ThumbnailSource): void
}

/** An upload as the route hands it over: the name the client gave and the file's bytes as they arrive. */
export interface Upload {
  filename: string | undefined
  bytes: Readable
}

/** The first `SAMPLE_BYTES` of `source` (fewer when it ends first) and a stream of all of it, sample first. */
async function sampled(source: Readable): Promise<{ sample: Buffer; all: Readable }> {
  const iterator = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>
  const head: Buffer[] = []
  let length = 0
  let done = false
  while (length < SAMPLE_BYTES) {
    const next = await iterator.next()
    if (next.done) {
      done = true
      break
    }
    head.push(next.value)
    length += next.value.length
  }
  const sample = Buffer.concat(head)
  async function* all() {
    yield sample
    if (done) return
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value
  }
  return { sample, all: Readable.from(all(), { objectMode: false }) }
}

export class AttachmentService {
  readonly maxBytes: number
  readonly accountBytes: number

  constructor(
    private readonly store: Store,
    readonly blobs: BlobStorage,
    private readonly config: AttachmentConfig,
  ) {
    this.maxBytes = config.megabytes * MB
    this.accountBytes = config.megabytesPerAccount * MB
  }

  tooLarge(): ContractError {
    return new ContractError(413, attachmentTooLargeMessage(this.config.megabytes))
  }

  overQuota(): ContractError {
    return new ContractError(403, attachmentQuotaMessage(this.config.megabytesPerAccount))
  }

  /** Refuses, before anything is read, an upload whose declared size cannot fit (`declared`: the body's length). */
  async checkRoom(userId: string, declared: number | undefined): Promise<void> {
    if (this.accountBytes === 0) return
    const used = await this.store.attachmentBytes(userId)
    if (used >= this.accountBytes) throw this.overQuota()
    // A multipart body carries its part's headers too: only what is surely file counts.
    if (declared !== undefined && used + declared - 64 * 1024 > this.accountBytes) throw this.overQuota()
  }

  /** Stores the upload: its record, or SessionEndedError when the account went meanwhile. */
  upload(userId: string, upload: Upload): Promise<AttachmentRecord> {
    const id = newId()
    return this.write(userId, id, id, upload)
  }

  /**
   * Stores the upload under `id`, which the caller chose (an import derives it from its source, so that a second run
   * finds it). Its bytes go under an id of their own: two runs of one import may race to the same record, and a blob
   * driver is not promised to take a second write under one id. A record already there throws the store's error.
   */
  storeAs(userId: string, id: string, upload: Upload): Promise<AttachmentRecord> {
    return this.write(userId, id, newId(), upload)
  }

  private async write(userId: string, id: string, blobId: string, upload: Upload): Promise<AttachmentRecord> {
    const name = storedName(upload.filename)
    const { sample, all } = await sampled(upload.bytes)
    const detected = await fileTypeFromBuffer(sample)
    const stored = await this.blobs.write(blobId, all, this.maxBytes).catch((err: unknown) => {
      throw err instanceof BlobTooLargeError ? this.tooLarge() : err
    })
    const record: AttachmentRecord = {
      _id: id,
      name,
      type: storedType(detected?.mime, name),
      size: stored.size,
      sha256: stored.sha256,
      createdOn: new Date().toISOString(),
      userId,
      blobKey: stored.key,
    }
    let inserted = false
    try {
      inserted = await this.store.insertAttachment(record)
    } catch (err) {
      await this.blobs.remove(stored.key).catch(() => {})
      throw err instanceof AttachmentQuotaExceededError ? this.overQuota() : err
    }
    if (!inserted) {
      await this.blobs.remove(stored.key).catch(() => {})
      throw new SessionEndedError()
    }
    return record
  }

  /** The owner's attachment; 404 for any other account's, a malformed id, or a name segment that is not its name. */
  async find(userId: string, attachmentId: string, name?: string): Promise<AttachmentRecord> {
    const record = isWellFormedId(attachmentId) ? await this.store.findAttachment(userId, attachmentId) : undefined
    if (!record || (name !== undefined && name !== record.name)) throw attachmentNotFound()
    return record
  }

  /**
   * The record's bytes, or those of `range`; a record whose bytes are missing is a 404, never a 500. Bytes missing
   * under the key read a moment ago may have been moved to another driver since (`attachments migrate`): the record
   * is read again, and its new key tried.
   */
  async read(record: AttachmentRecord, range?: ByteRange): Promise<Readable> {
    const bytes = await this.blobs.read(record.blobKey, range)
    if (bytes) return bytes
    const now = await this.store.findAttachment(record.userId, record._id)
    const moved = now && now.blobKey !== record.blobKey ? await this.blobs.read(now.blobKey, range) : undefined
    if (!moved) throw attachmentNotFound()
    return moved
  }

  async list(userId: string) {
    const [records, bytes] = await Promise.all([this.store.listAttachments(userId), this.store.attachmentBytes(userId)])
    return {
      attachments: records.map((record) => ({ ...attachmentAnswer(record), notes: record.notes })),
      usage: { bytes, limit: this.accountBytes },
    }
  }

  /** Erases the attachment at once, whatever links to it: those links then answer 404 (docs/attachments.md). */
  async delete(userId: string, attachmentId: string): Promise<void> {
    const record = isWellFormedId(attachmentId) ? await this.store.deleteAttachment(userId, attachmentId) : undefined
    if (!record) throw attachmentNotFound()
    await this.blobs.remove(record.blobKey)
  }

  /**
   * Runs `erase` (the account's deletion) and then erases the bytes of the files the account had; bytes an upload
   * racing the deletion wrote are the orphan sweep's (attachments-sweep.ts).
   */
  async eraseWithAccount(userId: string, erase: () => Promise<boolean>): Promise<boolean> {
    const keys = (await this.store.listAttachments(userId)).map((record) => record.blobKey)
    if (!(await erase())) return false
    for (const key of keys) await this.blobs.remove(key).catch(() => {})
    return true
  }
}
