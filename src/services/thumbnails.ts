// Thumbnails of picture attachments (docs/attachments.md, "Thumbnails"): a WebP that fits a square of one of
// THUMBNAIL_WIDTHS, never enlarged, turned as its EXIF orientation says, the first frame of an animation, and without
// any of the picture's metadata (sharp writes none unless asked: no keepMetadata, withMetadata or keepExif here).
//
// A picture is an untrusted input to a C decoder, so making one is bounded three ways: its header's pixel count is
// checked before anything is decoded (a small file can claim 50 000 × 50 000 pixels); at most `jobs` thumbnails are
// made at once per process, each on one libvips thread, so a burst holds at most `jobs` files in memory and leaves
// the CPUs and libuv's thread pool (argon2 and file reads use it too) to the API; and a job past JOB_SECONDS fails.
//
// Made thumbnails are kept in an in-process LRU bounded by bytes. That is correct however many instances run: an
// attachment's bytes never change under its id, so a thumbnail is a pure function of (id, width) and an instance
// that has one never holds a stale one; at worst each instance makes it once. Keeping them in the blob storage
// instead would share them, but would need keys the drivers do not make, their erasure with the file and with the
// account, and a place in the orphan sweep and the quota. The key is the attachment's id, never its hash, so an
// account cannot learn from the time of an answer whether another one holds the same picture.
import type { Readable } from 'node:stream'
import { buffer } from 'node:stream/consumers'
import { LRUCache } from 'lru-cache'
import pLimit from 'p-limit'
import sharp from 'sharp'
import type { AttachmentRecord } from '../attachment-shape.js'
import { ContractError, NOT_A_PICTURE, PICTURE_TOO_LARGE, PICTURE_UNREADABLE } from '../errors.js'
import { isPicture } from './attachment-files.js'

/** The widths a thumbnail is made at: a few, so that the cache holds few versions of a picture. */
export const THUMBNAIL_WIDTHS = [64, 256, 1024] as const
export type ThumbnailWidth = (typeof THUMBNAIL_WIDTHS)[number]

/** How a thumbnail was served, for the metrics: made now, or from the cache (or a making already under way). */
export type ThumbnailSource = 'made' | 'cache'

export interface ThumbnailOptions {
  /** The most pixels a picture's (first) frame may have: 100 MP passes a 12 MP or 48 MP phone photo. */
  maxPixels: number
  /** Thumbnails made at once by this service; one app per process, so per process. */
  jobs: number
  /** The bytes of thumbnails the cache keeps: 32 MB holds a few hundred of 1024 pixels, thousands of 256. */
  cacheBytes: number
}

export const DEFAULT_THUMBNAIL_OPTIONS: ThumbnailOptions = {
  maxPixels: 100_000_000,
  jobs: 2,
  cacheBytes: 32 * 2 ** 20,
}

/** A picture that takes longer than this is refused as unreadable rather than holding a job slot. */
const JOB_SECONDS = 30

/** The WebP quality: thumbnails are looked at small, so a smaller file beats finer detail. */
const WEBP_QUALITY = 80

// libvips' operation cache holds decoded images and files for reuse; every picture here is decoded once and its
// thumbnail kept above, so that cache would only hold memory. One thread per image: `jobs` bounds the threads.
sharp.cache(false)
sharp.concurrency(1)

/**
 * Refused pictures are 422, not 400: the request is well formed and names a picture, but its bytes cannot be made
 * into a thumbnail, which the client cannot know before asking (the record does not give the dimensions). It links
 * the file itself instead. Asking for a thumbnail of what is not a picture is the request's mistake (400): the
 * attachment's `type` says so beforehand.
 */
const refused = (message: string) => new ContractError(422, message)

/**
 * The thumbnail of a picture whose header has passed: what the service makes, and what bench/attachments.ts times
 * alone as the floor of a thumbnail's answer. limitInputPixels again, so the decoder itself holds the bound; failOn
 * 'error' makes a thumbnail of a picture a browser shows despite a warning (a few bad bytes at the end of a JPEG).
 */
export function resizedWebp(bytes: Buffer, width: ThumbnailWidth, maxPixels: number): Promise<Buffer> {
  return sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error' })
    .rotate()
    .resize({ width, height: width, fit: 'inside', withoutEnlargement: true })
    .webp({ quality: WEBP_QUALITY })
    .timeout({ seconds: JOB_SECONDS })
    .toBuffer()
}

export class ThumbnailService {
  private readonly cache: LRUCache<string, Buffer>
  private readonly making = new Map<string, Promise<Buffer>>()
  private readonly slot: ReturnType<typeof pLimit>
  private readonly options: ThumbnailOptions

  constructor(
    /** The attachment's bytes (AttachmentService.read). */
    private readonly read: (record: AttachmentRecord) => Promise<Readable>,
    /** Counts each thumbnail served (the metrics). */
    private readonly count: (source: ThumbnailSource) => void = () => {},
    options: Partial<ThumbnailOptions> = {},
  ) {
    this.options = { ...DEFAULT_THUMBNAIL_OPTIONS, ...options }
    this.slot = pLimit(this.options.jobs)
    this.cache = new LRUCache({ maxSize: this.options.cacheBytes, sizeCalculation: (thumbnail) => thumbnail.length })
  }

  /** 400 unless the attachment is a picture; checked before any conditional answer. */
  checkPicture(record: AttachmentRecord): void {
    if (!isPicture(record.type)) throw new ContractError(400, NOT_A_PICTURE)
  }

  /**
   * The thumbnail's WebP bytes: from the cache, from a making under way, or made once a job slot is free. A refused
   * picture is not remembered: asking again reads its header again, in a slot like any other.
   */
  async thumbnail(record: AttachmentRecord, width: ThumbnailWidth): Promise<Buffer> {
    this.checkPicture(record)
    const key = `${record._id}/${width}`
    const pending = this.cache.get(key) ?? this.making.get(key)
    if (pending) {
      this.count('cache')
      return pending
    }
    const made = this.slot(() => this.make(record, width))
      .then((thumbnail) => {
        this.count('made')
        this.cache.set(key, thumbnail)
        return thumbnail
      })
      .finally(() => this.making.delete(key))
    this.making.set(key, made)
    return made
  }

  private async make(record: AttachmentRecord, width: ThumbnailWidth): Promise<Buffer> {
    // Read inside the slot, so that waiting requests hold no file in memory.
    const bytes = await buffer(await this.read(record))
    // The header only: nothing is decoded before the pixel count passes.
    const header = await sharp(bytes, { limitInputPixels: false })
      .metadata()
      .catch(() => undefined)
    if (!header?.width || !header.height) throw refused(PICTURE_UNREADABLE)
    if (header.width * header.height > this.options.maxPixels) throw refused(PICTURE_TOO_LARGE)
    try {
      return await resizedWebp(bytes, width, this.options.maxPixels)
    } catch {
      throw refused(PICTURE_UNREADABLE)
    }
  }
}
