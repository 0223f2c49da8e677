// What an uploaded file is and what it may be called (docs/attachments.md, "Serving files safely"). The type comes
// from the bytes (file-type's answer), checked against the name's extension; the client's Content-Type is never read.
// One table says, for each type the service knows by name, its extensions and whether a browser may show it inline.
import { withoutControls } from '../unicode.js'

interface KnownType {
  type: string
  extensions: readonly string[]
  /** Shown in the page (an image, a PDF, audio, video); otherwise always a download. */
  inline: boolean
}

const KNOWN_TYPES: readonly KnownType[] = [
  { type: 'image/png', extensions: ['png'], inline: true },
  { type: 'image/jpeg', extensions: ['jpg', 'jpeg', 'jpe', 'jfif'], inline: true },
  { type: 'image/gif', extensions: ['gif'], inline: true },
  { type: 'image/webp', extensions: ['webp'], inline: true },
  { type: 'image/avif', extensions: ['avif'], inline: true },
  { type: 'application/pdf', extensions: ['pdf'], inline: true },
  { type: 'audio/mpeg', extensions: ['mp3'], inline: true },
  { type: 'audio/ogg', extensions: ['ogg', 'oga', 'opus'], inline: true },
  { type: 'audio/wav', extensions: ['wav'], inline: true },
  { type: 'audio/flac', extensions: ['flac'], inline: true },
  { type: 'audio/mp4', extensions: ['m4a'], inline: true },
  { type: 'video/mp4', extensions: ['mp4', 'm4v'], inline: true },
  { type: 'video/webm', extensions: ['webm'], inline: true },
  { type: 'video/quicktime', extensions: ['mov'], inline: true },
  { type: 'text/plain', extensions: ['txt', 'text', 'log'], inline: false },
  { type: 'text/markdown', extensions: ['md', 'markdown'], inline: false },
  { type: 'text/csv', extensions: ['csv'], inline: false },
  { type: 'application/json', extensions: ['json'], inline: false },
  { type: 'image/svg+xml', extensions: ['svg', 'svgz'], inline: false },
  { type: 'text/html', extensions: ['html', 'htm', 'xhtml', 'shtml'], inline: false },
  { type: 'application/xml', extensions: ['xml', 'xsl', 'xslt'], inline: false },
  { type: 'text/javascript', extensions: ['js', 'mjs'], inline: false },
]

const BY_EXTENSION = new Map(KNOWN_TYPES.flatMap((known) => known.extensions.map((ext) => [ext, known] as const)))

/** Inline families: an image, a PDF, audio or video, by its bytes. */
const isInlineFamily = (type: string) =>
  type.startsWith('audio/') ||
  type.startsWith('video/') ||
  KNOWN_TYPES.some((known) => known.inline && known.type === type)

export const OCTET_STREAM = 'application/octet-stream'

const extensionOf = (name: string): string | undefined => {
  const dot = name.lastIndexOf('.')
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : undefined
}

/**
 * The type stored and served: the bytes' when they name one; else the name's when it is a type the bytes would not
 * show (text, SVG, HTML...), since a claimed picture the bytes do not confirm is only bytes.
 */
export function storedType(detected: string | undefined, name: string): string {
  if (detected) return detected
  const known = BY_EXTENSION.get(extensionOf(name) ?? '')
  return known && !known.inline ? known.type : OCTET_STREAM
}

/**
 * Whether a browser may show the file in the page: a type of an inline family whose name does not claim another
 * kind (a GIF named page.html is a download). Everything else is served as an attachment.
 */
export function servedInline(type: string, name: string): boolean {
  if (!isInlineFamily(type)) return false
  const known = BY_EXTENSION.get(extensionOf(name) ?? '')
  return known === undefined || known.inline
}

/** Is the stored type an image a thumbnail can be made of. */
export const isPicture = (type: string): boolean => /^image\/(png|jpeg|gif|webp|avif)$/.test(type)

/** The most bytes a stored name takes (a file system's limit for one name). */
export const MAX_NAME_BYTES = 255

/** What a file is called when its name leaves nothing. */
export const FALLBACK_NAME = 'file'

/**
 * The name an upload is kept under: its last path segment, in NFC, without control or bidi characters, trimmed,
 * and cut (keeping its extension) to fit MAX_NAME_BYTES of UTF-8; FALLBACK_NAME when nothing is left.
 */
export function storedName(raw: string | undefined): string {
  const segments = withoutControls((raw ?? '').toWellFormed().normalize('NFC')).split(/[/\\]/)
  const name = (segments[segments.length - 1] ?? '').trim()
  if (name === '' || /^\.+$/.test(name)) return FALLBACK_NAME
  return fitBytes(name, MAX_NAME_BYTES)
}

const utf8Length = (text: string) => Buffer.byteLength(text, 'utf8')

function fitBytes(name: string, max: number): string {
  if (utf8Length(name) <= max) return name
  const ext = extensionOf(name)
  const suffix = ext !== undefined && utf8Length(ext) <= 16 ? `.${ext}` : ''
  let stem = ''
  let room = max - utf8Length(suffix)
  for (const char of name.slice(0, name.length - suffix.length)) {
    room -= utf8Length(char)
    if (room < 0) break
    stem += char
  }
  return stem + suffix
}
