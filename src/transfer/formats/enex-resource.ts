// One resource's base64 `<data>` of an Evernote export, decoded as its text streams in: the bytes go to a scratch
// file and into an MD5 (the hash en-media names it by), so a resource of any size is never held whole.
import { createHash } from 'node:crypto'
import { type WriteStream, createWriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { once } from 'node:events'
import { join } from 'node:path'

/** A decoded resource on disk. */
export interface StoredResource {
  path: string
  md5: string
  size: number
}

const NOT_BASE64 = /[^A-Za-z0-9+/=]/

/** Decodes base64 text given in pieces of any length; whitespace between them is allowed, as in ENEX. */
export class Base64Pieces {
  /** Fewer than four characters that wait for the rest of their group. */
  private pending = ''
  private sawPadding = false
  /** Set when a character outside base64 appears. */
  invalid = false

  write(text: string): Buffer {
    const compact = text.replace(/\s+/g, '')
    if (compact === '') return Buffer.alloc(0)
    if (NOT_BASE64.test(compact) || this.sawPadding) this.invalid = true
    const all = this.pending + compact
    const whole = all.length - (all.length % 4)
    this.pending = all.slice(whole)
    if (all.slice(0, whole).includes('=')) this.sawPadding = true
    return Buffer.from(all.slice(0, whole), 'base64')
  }

  /** Characters left over at the end: a base64 text cut short. */
  end(): void {
    if (this.pending !== '') this.invalid = true
  }
}

/** Writes one resource to `scratchDir`; `discard` decodes nothing (its note is skipped anyway). */
export class ResourceSink {
  readonly path: string
  private readonly decoder = new Base64Pieces()
  private readonly hash = createHash('md5')
  private readonly file: WriteStream | undefined
  private size = 0
  private failure: Error | undefined

  constructor(scratchDir: string, name: string, discard: boolean) {
    this.path = join(scratchDir, name)
    if (!discard) {
      this.file = createWriteStream(this.path)
      this.file.on('error', (err) => (this.failure = err))
    }
  }

  write(text: string): void {
    if (!this.file) return
    const bytes = this.decoder.write(text)
    if (bytes.length === 0) return
    this.size += bytes.length
    this.hash.update(bytes)
    this.file.write(bytes)
  }

  /** Resolves once the file can take more: the reader waits here so decoded bytes never pile up in memory. */
  async drained(): Promise<void> {
    if (this.file?.writableNeedDrain) await once(this.file, 'drain')
    if (this.failure) throw this.failure
  }

  /** The stored resource, or undefined when its text is not base64 or it was discarded. */
  async finish(): Promise<StoredResource | undefined> {
    if (!this.file) return undefined
    this.decoder.end()
    this.file.end()
    await once(this.file, 'close')
    if (this.failure) throw this.failure
    if (this.decoder.invalid) {
      await this.remove()
      return undefined
    }
    return { path: this.path, md5: this.hash.digest('hex'), size: this.size }
  }

  async remove(): Promise<void> {
    if (this.file && !this.file.closed) {
      this.file.destroy()
      await once(this.file, 'close').catch(() => {})
    }
    await rm(this.path, { force: true })
  }
}
