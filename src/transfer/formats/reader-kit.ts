// What the JSON-based readers (Keep, Simplenote, Standard Notes, notes-service JSON) share: reading an entry as JSON
// within the per-note limit, naming entries, writing a file's Markdown link, and the source object every reader returns.
import type { Archive, ArchiveEntry } from './archive.js'
import { readEntryBytes } from './archive.js'
import { type ImportEvent, type ImportFormat, type ImportSource, MAX_SOURCE_NOTE_BYTES } from './items.js'

/** The entry's file name, without its folders. */
export const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1)

/** The entry's folder ('' at the root). */
export const folderOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf('/')))

/** The name's extension in lower case, without the dot; '' when it has none. */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.')
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : ''
}

/** Thrown by readJson: the entry's bytes are not JSON. */
export class NotJsonError extends Error {
  override name = 'NotJsonError'
}

/** Parses the entry's text as JSON (a byte order mark allowed); NotJsonError when it is not JSON. */
export async function readJson(entry: ArchiveEntry, maxBytes: number): Promise<unknown> {
  const text = (await readEntryBytes(entry, maxBytes)).toString('utf8').replace(/^\uFEFF/, '')
  try {
    return JSON.parse(text) as unknown
  } catch (err) {
    throw new NotJsonError(`"${entry.path}" is not valid JSON (${(err as Error).message})`)
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The value when it is a string, else ''. */
export const stringField = (value: unknown): string => (typeof value === 'string' ? value : '')

const IMAGE_EXTENSIONS = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'bmp',
  'heic',
  'heif',
  'avif',
  'svg',
  'tif',
  'tiff',
])

/** Whether a file of this name is shown as a picture; a source's media type is a hint only, the name decides too. */
export const looksLikeImage = (name: string, mediaType = ''): boolean =>
  IMAGE_EXTENSIONS.has(extensionOf(name)) || /^image\//i.test(mediaType)

/** Text that reads as itself inside a Markdown link's or image's brackets. */
export const escapeLinkText = (text: string): string => text.replace(/[\\[\]]/g, '\\$&').replace(/\s+/g, ' ')

/** A URL as a Markdown link destination: angle brackets keep spaces and parentheses in it. */
export const linkDestination = (url: string): string => `<${url.replace(/[<>\n\r]/g, (c) => encodeURIComponent(c))}>`

/**
 * Ref tokens for one note's files: each names its file by its index and ends with a mark, so no token is the start of
 * another; the stem is chosen so that the note's own text never holds it, and the service's replacement hits only refs.
 */
export function refMaker(text: string): (index: number) => string {
  let stem = 'import-file-ref'
  for (let n = 1; text.includes(stem); n++) stem = `import-file-ref${n}x`
  return (index) => `${stem}-${index}-end`
}

/** An ImportSource over an archive the source owns: close() closes the archive, once. */
export function archiveSource(
  format: ImportFormat,
  archive: Archive,
  items: () => AsyncIterable<ImportEvent>,
): ImportSource {
  let closing: Promise<void> | undefined
  return {
    format,
    items,
    close: () => (closing ??= archive.close()),
  }
}

/** The first `bytes` (about) of the entry as text, for a probe: the rest is never read. */
export async function entryHead(entry: ArchiveEntry, bytes: number): Promise<string> {
  const stream = await entry.open()
  let head = ''
  try {
    for await (const chunk of stream) {
      head += (chunk as Buffer).toString('utf8')
      if (head.length >= bytes) break
    }
  } finally {
    stream.destroy()
  }
  return head
}

/** The entry's text, whole (at most MAX_SOURCE_NOTE_BYTES), or undefined when it is not UTF-8. */
export async function entryUtf8(entry: ArchiveEntry): Promise<string | undefined> {
  const bytes = await readEntryBytes(entry, MAX_SOURCE_NOTE_BYTES)
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
}
