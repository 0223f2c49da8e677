// File names made from titles for the Markdown export: valid on Windows, macOS and Linux, short enough for any file
// system, and unique in their folder even where names are compared without case (docs/migration.md, "Export").

/** Characters no file name may hold on one of the three systems, and the control characters. */
const FORBIDDEN = /[/\\:*?"<>|\p{Cc}\p{Bidi_Control}]/gu
/** Windows refuses these names whatever their case and whatever extension follows. */
const RESERVED = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i

/** The most UTF-8 bytes of a file name, suffix and extension included: well under every system's 255. */
export const MAX_NAME_BYTES = 100

const byteLength = (text: string) => Buffer.byteLength(text, 'utf8')

/** The longest start of `text` within `bytes` UTF-8 bytes, never splitting a character. */
function truncated(text: string, bytes: number): string {
  if (byteLength(text) <= bytes) return text
  let out = ''
  let used = 0
  for (const char of text) {
    used += byteLength(char)
    if (used > bytes) break
    out += char
  }
  return out
}

/** `base` as a file name's stem: forbidden characters as `_`, no leading dot (a hidden file), no trailing dot or space. */
function cleanStem(base: string): string {
  let stem = base.toWellFormed().normalize('NFC').replace(FORBIDDEN, '_').trim()
  stem = stem.replace(/^\.+/, (dots) => '_'.repeat(dots.length))
  return stem.replace(/[. ]+$/, '')
}

/** A stem that fits `bytes` with what follows it; `fallback` when nothing is left. */
function fittedStem(base: string, bytes: number, fallback: string): string {
  let stem = cleanStem(truncated(cleanStem(base), bytes)) || fallback
  if (RESERVED.test(stem)) stem = `_${stem}`
  return truncated(stem, bytes).replace(/[. ]+$/, '') || fallback
}

/** The file name for an attachment's `name`, its extension kept when it is a short one. */
export function safeFileName(name: string, fallback = 'file'): string {
  const dot = name.lastIndexOf('.')
  const ext = dot > 0 && name.length - dot <= 11 ? cleanStem(name.slice(dot)).replace(/^_/, '.') : ''
  const extension = /^\.[^.]+$/.test(ext) ? ext : ''
  const stem = fittedStem(extension ? name.slice(0, dot) : name, MAX_NAME_BYTES - byteLength(extension), fallback)
  return stem + extension
}

/**
 * Names unique in one folder: the second `Note.md` is `Note (2).md`. Names are compared as case-insensitive file
 * systems (Windows, macOS) compare them, so that unpacking there loses no file.
 */
export class UniqueNames {
  private readonly taken = new Set<string>()
  /** The last suffix tried for each title, so that many equal titles take linear time. */
  private readonly lastSuffix = new Map<string, number>()

  /** A new name for a file made from `title`, ending in `extension` (such as `.md`). */
  name(title: string, extension: string): string {
    const titleKey = title.normalize('NFC').toLowerCase() + '\0' + extension
    for (let n = this.lastSuffix.get(titleKey) ?? 1; ; n++) {
      const suffix = n === 1 ? '' : ` (${n})`
      const room = MAX_NAME_BYTES - byteLength(suffix + extension)
      const name = fittedStem(title, room, 'untitled') + suffix + extension
      const key = name.normalize('NFC').toLowerCase()
      if (!this.taken.has(key)) {
        this.taken.add(key)
        this.lastSuffix.set(titleKey, n)
        return name
      }
    }
  }
}
