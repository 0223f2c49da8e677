// A zip file or a folder as one list of files, read with limits that a hostile archive cannot pass: an entry that
// climbs out (`../`, an absolute path), a symbolic link, too many entries, too many bytes, or bytes that expand past
// a ratio (a zip bomb) refuse the whole archive before any note is written (docs/migration.md, "Bad input").
import { createReadStream } from 'node:fs'
import { lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import yauzl from 'yauzl'

/** One file of the archive; `path` is relative, its parts separated by '/'. */
export interface ArchiveEntry {
  path: string
  size: number
  open(): Promise<Readable>
}

export interface Archive {
  /** Files only, in the archive's order (a folder's: by name). */
  entries: ArchiveEntry[]
  close(): Promise<void>
}

export interface ArchiveLimits {
  entries: number
  /** What all entries may hold together, uncompressed. */
  bytes: number
  /** How many times its compressed size an entry (of over `ratioFloor` bytes), or the whole zip, may expand. */
  ratio: number
  ratioFloor: number
}

export const ARCHIVE_LIMITS: ArchiveLimits = {
  entries: 200_000,
  bytes: 16 * 2 ** 30,
  ratio: 200,
  ratioFloor: 2 ** 20,
}

/** The archive cannot be read, or is refused; the message says which entry and why. */
export class ArchiveError extends Error {
  override name = 'ArchiveError'
}

const S_IFMT = 0o170000
const S_IFLNK = 0o120000

/** The refusal of a path no archive may hold, or undefined. */
function unsafePath(path: string): string | undefined {
  if (path.includes('\\') || path.includes('\0')) return `the entry "${path}" has a backslash or a NUL in its name`
  if (path.startsWith('/') || /^[a-zA-Z]:/.test(path)) return `the entry "${path}" has an absolute path`
  if (path.split('/').includes('..')) return `the entry "${path}" climbs out of the archive (..)`
  return undefined
}

function counted(limits: ArchiveLimits) {
  let entries = 0
  let bytes = 0
  return (path: string, size: number) => {
    entries += 1
    bytes += size
    if (entries > limits.entries) throw new ArchiveError(`more than ${limits.entries} entries`)
    if (bytes > limits.bytes) throw new ArchiveError(`more than ${limits.bytes} bytes once unpacked (at "${path}")`)
    return bytes
  }
}

/** The zip at `file`; ArchiveError when it is not one or is refused. */
export async function openZip(file: string, limits: ArchiveLimits = ARCHIVE_LIMITS): Promise<Archive> {
  let zip: yauzl.ZipFile
  try {
    zip = await yauzl.openPromise(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true })
  } catch (err) {
    throw new ArchiveError(`not a zip file (${(err as Error).message})`)
  }
  const count = counted(limits)
  const entries: ArchiveEntry[] = []
  let total = 0
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (err: Error) =>
        reject(err instanceof ArchiveError ? err : new ArchiveError(unsafeMessage(err.message))),
      )
      zip.on('end', () => resolve())
      zip.on('entry', (entry: yauzl.Entry) => {
        try {
          const path = entry.fileName
          const refusal = unsafePath(path)
          if (refusal) throw new ArchiveError(refusal)
          if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK)
            throw new ArchiveError(`the entry "${path}" is a symbolic link`)
          if (path.endsWith('/')) return zip.readEntry()
          const size = entry.uncompressedSize
          if (size > limits.ratioFloor && size > limits.ratio * Math.max(1, entry.compressedSize))
            throw new ArchiveError(`the entry "${path}" expands more than ${limits.ratio} times (a zip bomb?)`)
          total = count(path, size)
          entries.push({ path, size, open: () => zip.openReadStreamPromise(entry) })
          zip.readEntry()
        } catch (err) {
          reject(err instanceof Error ? err : new ArchiveError(String(err)))
        }
      })
      zip.readEntry()
    })
    const { size } = await lstat(file)
    if (total > limits.ratioFloor && total > limits.ratio * size)
      throw new ArchiveError(`its entries expand more than ${limits.ratio} times the zip's size (a zip bomb?)`)
  } catch (err) {
    zip.close()
    throw err
  }
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    zip.close()
  }
  return { entries, close }
}

/** yauzl's own refusals of a name, in our words. */
function unsafeMessage(message: string): string {
  const name = /: (.*)$/.exec(message)?.[1]
  if (name !== undefined && /^(absolute path|invalid relative path|invalid characters)/.test(message))
    return unsafePath(name) ?? message
  return `not a readable zip file (${message})`
}

/** The files under `dir`, sorted by path; a symbolic link anywhere refuses it. */
export async function openFolder(dir: string, limits: ArchiveLimits = ARCHIVE_LIMITS): Promise<Archive> {
  const count = counted(limits)
  const entries: ArchiveEntry[] = []
  async function walk(prefix: string): Promise<void> {
    const names = (await readdir(join(dir, prefix))).sort()
    for (const name of names) {
      const path = prefix === '' ? name : `${prefix}/${name}`
      const stat = await lstat(join(dir, path))
      if (stat.isSymbolicLink()) throw new ArchiveError(`"${path}" is a symbolic link`)
      if (stat.isDirectory()) await walk(path)
      else if (stat.isFile()) {
        count(path, stat.size)
        const file = join(dir, path)
        entries.push({ path, size: stat.size, open: async () => createReadStream(file) })
      }
    }
  }
  await walk('')
  return { entries, close: async () => {} }
}

/** The entry's bytes, whole; ArchiveError past `maxBytes`. */
export async function readEntryBytes(entry: ArchiveEntry, maxBytes: number): Promise<Buffer> {
  if (entry.size > maxBytes) throw new ArchiveError(`"${entry.path}" is larger than ${maxBytes} bytes`)
  const chunks: Buffer[] = []
  for await (const chunk of await entry.open()) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}
