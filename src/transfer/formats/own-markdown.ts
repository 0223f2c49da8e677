// Reads back the Markdown export (markdown-export.ts): notes/ and trash/ by manifest.json, their front matter as
// the note's fields, and links to ../attachments/ as the note's files (docs/migration.md, "Export").
// Kept history is not read: the import makes notes, and a revision is only a state of one.
import type { Archive, ArchiveEntry } from './archive.js'
import { ArchiveError, readEntryBytes } from './archive.js'
import { parseFrontMatter, splitFrontMatter } from './front-matter.js'
import type { ArchiveFormat, ImportEvent, ImportedFile, ImportedNote } from './items.js'
import { IMPORT_FORMATS, MAX_SOURCE_NOTE_BYTES, MalformedImportError, isoDate } from './items.js'
import { MARKDOWN_EXPORT_FORMAT, MARKDOWN_EXPORT_VERSION, type MarkdownManifest } from './markdown-export.js'
import { entryUtf8 } from './reader-kit.js'

const FORMAT_NAME = IMPORT_FORMATS['notes-service-markdown']
/** A manifest lists each note in about a hundred bytes: this holds millions. */
const MAX_MANIFEST_BYTES = 256 * 2 ** 20

/** The folder that holds manifest.json: the root, or the single folder everything is in. */
export function exportRoot(archive: Archive): string | undefined {
  if (archive.entries.some((entry) => entry.path === 'manifest.json')) return ''
  const first = archive.entries[0]?.path.split('/')[0]
  if (first === undefined || !archive.entries.every((entry) => entry.path.startsWith(`${first}/`))) return undefined
  return archive.entries.some((entry) => entry.path === `${first}/manifest.json`) ? `${first}/` : undefined
}

async function readManifest(archive: Archive, root: string): Promise<unknown> {
  const entry = archive.entries.find((candidate) => candidate.path === `${root}manifest.json`)
  if (!entry) return undefined
  try {
    return JSON.parse((await readEntryBytes(entry, MAX_MANIFEST_BYTES)).toString('utf8')) as unknown
  } catch (err) {
    if (err instanceof ArchiveError) throw new MalformedImportError(FORMAT_NAME, `manifest.json: ${err.message}`)
    return undefined
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function checkedManifest(value: unknown): MarkdownManifest {
  const problem = (what: string) => new MalformedImportError(FORMAT_NAME, `manifest.json ${what}`)
  if (!isRecord(value) || value.format !== MARKDOWN_EXPORT_FORMAT) throw problem('is not a notes-service export')
  if (typeof value.version !== 'number') throw problem('has no version')
  if (value.version > MARKDOWN_EXPORT_VERSION)
    throw problem(
      `is of version ${value.version}, from a newer notes-service than this one (which reads up to ${MARKDOWN_EXPORT_VERSION}): update it first`,
    )
  const list = (key: string) => {
    const items = value[key] ?? []
    if (!Array.isArray(items) || !items.every((item) => isRecord(item) && typeof item.path === 'string'))
      throw problem(`has a malformed "${key}" list`)
    return items as Record<string, unknown>[]
  }
  for (const item of list('attachments'))
    if (typeof item.id !== 'string' || typeof item.name !== 'string')
      throw problem('has an attachment without id or name')
  return value as unknown as MarkdownManifest
}

export const ownMarkdownFormat: ArchiveFormat = {
  format: 'notes-service-markdown',
  async probe(archive) {
    const root = exportRoot(archive)
    if (root === undefined) return false
    const manifest = await readManifest(archive, root).catch(() => undefined)
    return isRecord(manifest) && manifest.format === MARKDOWN_EXPORT_FORMAT
  },
  source(archive) {
    return {
      format: 'notes-service-markdown',
      items: () => readExport(archive),
      close: () => archive.close(),
    }
  },
}

async function* readExport(archive: Archive): AsyncGenerator<ImportEvent> {
  const root = exportRoot(archive)
  if (root === undefined) throw new MalformedImportError(FORMAT_NAME, 'there is no manifest.json')
  const manifest = checkedManifest(await readManifest(archive, root))
  const byPath = new Map(archive.entries.map((entry) => [entry.path, entry]))
  const attachments = new Map<string, { name: string; entry: ArchiveEntry | undefined }>()
  for (const { id, name, path } of manifest.attachments) attachments.set(id, { name, entry: byPath.get(root + path) })
  for (const [list, trashed] of [
    [manifest.notes, false],
    [manifest.trash, true],
  ] as const) {
    for (const { path } of list) {
      const entry = byPath.get(root + path)
      if (!entry) yield { skipped: { label: path, reason: 'it is listed in manifest.json but not in the export' } }
      else if (entry.size > MAX_SOURCE_NOTE_BYTES)
        yield { skipped: { label: path, reason: `it is too large (over ${MAX_SOURCE_NOTE_BYTES} bytes)` } }
      else yield await readNote(entry, path, trashed, attachments)
    }
  }
}

async function readNote(
  entry: ArchiveEntry,
  label: string,
  trashed: boolean,
  attachments: Map<string, { name: string; entry: ArchiveEntry | undefined }>,
): Promise<ImportEvent> {
  const skip = (reason: string): ImportEvent => ({ skipped: { label, reason } })
  const text = await entryUtf8(entry)
  if (text === undefined) return skip('it is not UTF-8 text')
  const { yaml, body } = splitFrontMatter(text)
  if (yaml === undefined) return skip('it has no front matter')
  const parsed = parseFrontMatter(yaml)
  if ('problem' in parsed) return skip(parsed.problem)
  const { id, title = '', tags = [], pinned = false, created, updated } = parsed.properties
  if (typeof id !== 'string' || id === '') return skip('its front matter has no id')
  if (typeof title !== 'string') return skip('its title is not text')
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string'))
    return skip('its tags are not a list of text')
  if (typeof pinned !== 'boolean') return skip('its "pinned" is neither true nor false')
  const createdOn = exportedTime(created)
  const updatedOn = exportedTime(updated)
  if (createdOn === null) return skip(`its created time is not a date: ${String(created)}`)
  if (updatedOn === null) return skip(`its updated time is not a date: ${String(updated)}`)
  const note: ImportedNote = {
    key: `notes-service:${id}`,
    label,
    title,
    content: body,
    tags,
    isPinned: pinned,
    trashed,
    createdOn,
    updatedOn,
    files: linkedFiles(body, attachments),
  }
  return { note }
}

/** An exported time as ISO 8601; undefined when there is none, null when it is not a time. */
function exportedTime(value: unknown): string | undefined | null {
  if (value === undefined || value === null) return undefined
  const iso = typeof value === 'string' && /^[+-]?\d{4,6}-\d\d-\d\dT/.test(value) ? isoDate(new Date(value)) : undefined
  return iso ?? null
}

/** The characters encodeURIComponent leaves as they are, and `%`: a name segment, when it is not the exported one. */
const NAME_SEGMENT = /^[A-Za-z0-9\-_.!~*'%]*/
const RELATIVE_LINK = /(?<=^|[\s(<"'[=])\.\.\/attachments\/([^/\s]+)\//g

/**
 * The files `content` links to, each by the link's exact text: `../attachments/<id>/` and the name the export wrote
 * (the attachment's, URL-encoded), or, when the text was edited, what follows up to a character no encoded name holds.
 */
function linkedFiles(
  content: string,
  attachments: Map<string, { name: string; entry: ArchiveEntry | undefined }>,
): ImportedFile[] {
  const files = new Map<string, ImportedFile>()
  for (const match of content.matchAll(RELATIVE_LINK)) {
    const id = match[1] ?? ''
    const attachment = attachments.get(id)
    const entry = attachment?.entry
    if (!attachment || !entry) continue
    const rest = content.slice(match.index + match[0].length)
    const encoded = encodeURIComponent(attachment.name)
    const ref = match[0] + (rest.startsWith(encoded) ? encoded : (NAME_SEGMENT.exec(rest)?.[0] ?? ''))
    if (!files.has(ref)) files.set(ref, { ref, name: attachment.name, open: () => entry.open() })
  }
  return [...files.values()]
}
