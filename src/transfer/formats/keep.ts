// Google Keep's Takeout (docs/migration.md, "Google Keep"): one JSON file per note beside its attached files, in a
// folder whose name Takeout localizes ("Keep", "Google Notizen"), so notes are found by their fields, not by a path.
import type { Archive, ArchiveEntry } from './archive.js'
import {
  IMPORT_FORMATS,
  type ImportEvent,
  type ImportedFile,
  type ImportedNote,
  MAX_SOURCE_NOTE_BYTES,
  MalformedImportError,
  type ArchiveFormat,
  isoDate,
} from './items.js'
import {
  NotJsonError,
  archiveSource,
  baseName,
  escapeLinkText,
  extensionOf,
  folderOf,
  isObject,
  linkDestination,
  looksLikeImage,
  readJson,
  refMaker,
  stringField,
} from './reader-kit.js'

const NAME = IMPORT_FORMATS.keep

/** How many small .json entries probe reads, and how large one may be: a Keep note's JSON is a few KiB. */
const PROBE_ENTRIES = 5
const PROBE_BYTES = 256 * 1024

const isJsonEntry = (entry: ArchiveEntry) => extensionOf(entry.path) === 'json'

/** A Keep note's JSON: its edit time, a title, and text or a checklist. */
export function isKeepNote(value: unknown): value is Record<string, unknown> {
  return (
    isObject(value) &&
    'userEditedTimestampUsec' in value &&
    'title' in value &&
    ('textContent' in value || 'listContent' in value)
  )
}

/** Microseconds since the epoch (a number or a string of digits) as ISO 8601, or undefined. */
export function usecDate(value: unknown): string | undefined {
  let ms: number
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) ms = Math.floor(value / 1000)
  else if (typeof value === 'string' && /^\d{1,19}$/.test(value)) ms = Number(BigInt(value) / 1000n)
  else return undefined
  return isoDate(new Date(ms))
}

/**
 * The attached file a Keep note names: by its name in the note's folder, then ignoring case, then with the other of
 * .jpg and .jpeg, as Takeout writes some pictures under a different extension than the JSON gives.
 */
function findAttachment(folder: Map<string, ArchiveEntry>, name: string): ArchiveEntry | undefined {
  const exact = folder.get(name)
  if (exact) return exact
  const lower = name.toLowerCase()
  const ext = extensionOf(lower)
  const stem = ext === '' ? lower : lower.slice(0, -ext.length - 1)
  const alternatives = ext === 'jpg' ? ['jpeg'] : ext === 'jpeg' ? ['jpg'] : []
  const wanted = new Set([lower, ...alternatives.map((a) => `${stem}.${a}`)])
  for (const [candidate, entry] of folder) if (wanted.has(candidate.toLowerCase())) return entry
  return undefined
}

const listItem = (item: Record<string, unknown>) =>
  `- [${item.isChecked === true ? 'x' : ' '}] ${stringField(item.text)
    .trim()
    .replace(/\s*\n\s*/g, ' ')}`

/** The note's Markdown and files, or the reason it is skipped. */
export function keepNote(
  json: Record<string, unknown>,
  fileName: string,
  folder: Map<string, ArchiveEntry>,
): ImportedNote | { reason: string } {
  const updatedOn = usecDate(json.userEditedTimestampUsec)
  if (updatedOn === undefined) return { reason: 'userEditedTimestampUsec is not a time in microseconds' }
  // Older Takeouts have no createdTimestampUsec: the last edit is the latest the note can have been made.
  const createdOn = json.createdTimestampUsec === undefined ? updatedOn : usecDate(json.createdTimestampUsec)
  if (createdOn === undefined) return { reason: 'createdTimestampUsec is not a time in microseconds' }

  const title = stringField(json.title)
  const text = stringField(json.textContent)
  const blocks: string[] = []
  if (text.trim() !== '') blocks.push(text.replace(/\s+$/, ''))
  const items = Array.isArray(json.listContent) ? json.listContent.filter(isObject) : []
  const checklist = items.filter((item) => stringField(item.text).trim() !== '').map(listItem)
  if (checklist.length > 0) blocks.push(checklist.join('\n'))

  const ref = refMaker(title + text + JSON.stringify(items))
  const files: ImportedFile[] = []
  const fileLines: string[] = []
  for (const attachment of Array.isArray(json.attachments) ? json.attachments.filter(isObject) : []) {
    const name = baseName(stringField(attachment.filePath))
    if (name === '') continue
    const entry = findAttachment(folder, name)
    if (!entry) {
      fileLines.push(`*${escapeLinkText(name)}: the file is missing from the Takeout.*`)
      continue
    }
    const token = ref(files.length)
    files.push({ ref: token, name: baseName(entry.path), open: () => entry.open() })
    const shown = escapeLinkText(baseName(entry.path))
    fileLines.push(
      looksLikeImage(name, stringField(attachment.mimetype)) ? `![${shown}](${token})` : `[${shown}](${token})`,
    )
  }
  if (fileLines.length > 0) blocks.push(fileLines.join('\n\n'))

  const links: string[] = []
  for (const annotation of Array.isArray(json.annotations) ? json.annotations.filter(isObject) : []) {
    const url = stringField(annotation.url).trim()
    if (url === '') continue
    const label = stringField(annotation.title).trim()
    links.push(label === '' ? `- ${linkDestination(url)}` : `- [${escapeLinkText(label)}](${linkDestination(url)})`)
  }
  if (links.length > 0) blocks.push(links.join('\n'))

  const tags: string[] = []
  const tag = (name: string) => {
    if (name !== '' && !tags.includes(name)) tags.push(name)
  }
  for (const label of Array.isArray(json.labels) ? json.labels.filter(isObject) : [])
    tag(stringField(label.name).trim())
  if (json.isArchived === true) tag('archived')
  const color = stringField(json.color).trim()
  if (color !== '' && color.toUpperCase() !== 'DEFAULT') tag(`color:${color.toLowerCase()}`)

  return {
    key: `keep:${fileName}`,
    label: title.trim() !== '' ? title : fileName,
    title,
    content: blocks.join('\n\n'),
    tags,
    isPinned: json.isPinned === true,
    trashed: json.isTrashed === true,
    createdOn,
    updatedOn,
    files,
  }
}

/** Each folder's files by name, for finding a note's attachments beside it. */
function foldersOf(archive: Archive): Map<string, Map<string, ArchiveEntry>> {
  const folders = new Map<string, Map<string, ArchiveEntry>>()
  for (const entry of archive.entries) {
    const folder = folderOf(entry.path)
    let files = folders.get(folder)
    if (!files) folders.set(folder, (files = new Map<string, ArchiveEntry>()))
    files.set(baseName(entry.path), entry)
  }
  return folders
}

async function* keepItems(archive: Archive): AsyncGenerator<ImportEvent> {
  const folders = foldersOf(archive)
  let notes = 0
  // A JSON file that cannot be parsed is a note Keep wrote badly only once some other file is a Keep note.
  let unreadable: { label: string; reason: string }[] = []
  const flush = function* () {
    for (const skipped of unreadable) yield { skipped }
    unreadable = []
  }
  for (const entry of archive.entries.filter(isJsonEntry)) {
    const fileName = baseName(entry.path)
    if (entry.size > MAX_SOURCE_NOTE_BYTES) {
      yield { skipped: { label: fileName, reason: `too large (${entry.size} bytes)` } }
      continue
    }
    let json: unknown
    try {
      json = await readJson(entry, MAX_SOURCE_NOTE_BYTES)
    } catch (err) {
      if (!(err instanceof NotJsonError)) throw err
      unreadable.push({ label: fileName, reason: err.message })
      if (notes > 0) yield* flush()
      continue
    }
    // Takeout may add JSON of its own; only a note's shape is a note.
    if (!isKeepNote(json)) continue
    notes++
    yield* flush()
    const note = keepNote(json, fileName, folders.get(folderOf(entry.path)) ?? new Map<string, ArchiveEntry>())
    if ('reason' in note) yield { skipped: { label: stringField(json.title) || fileName, reason: note.reason } }
    else yield { note }
  }
  if (notes === 0) {
    const problem = unreadable[0]?.reason
    throw new MalformedImportError(NAME, problem ?? "no Keep note found (a .json file with Keep's note fields)")
  }
}

export const keepFormat: ArchiveFormat = {
  format: 'keep',
  async probe(archive) {
    const candidates = archive.entries.filter((entry) => isJsonEntry(entry) && entry.size <= PROBE_BYTES)
    for (const entry of candidates.slice(0, PROBE_ENTRIES)) {
      try {
        if (isKeepNote(await readJson(entry, PROBE_BYTES))) return true
      } catch (err) {
        if (!(err instanceof NotJsonError)) throw err
      }
    }
    // Takeout's own shape, whatever the JSON holds: a note's .json beside its .html twin. Read as Keep, a Takeout
    // whose notes cannot be read is refused as Keep's, naming the problem, not as a file of no known format.
    const paths = new Set(archive.entries.map((entry) => entry.path))
    return archive.entries.some((entry) => isJsonEntry(entry) && paths.has(entry.path.replace(/\.json$/i, '.html')))
  },
  source: (archive) => archiveSource('keep', archive, () => keepItems(archive)),
}
