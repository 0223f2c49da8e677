// Simplenote's export (docs/migration.md, "Simplenote"): a zip holding source/notes.json, {activeNotes, trashedNotes},
// beside one .txt per note that says nothing more, or that notes.json alone. A note has no title of its own: its
// first line is one.
import { readEntryBytes } from './archive.js'
import type { Archive, ArchiveEntry } from './archive.js'
import {
  type ArchiveFormat,
  IMPORT_FORMATS,
  type ImportEvent,
  type ImportedNote,
  MAX_SOURCE_NOTE_BYTES,
  MalformedImportError,
  isoDate,
} from './items.js'
import { archiveSource, baseName, entryHead, isObject, stringField } from './reader-kit.js'

const NAME = IMPORT_FORMATS.simplenote

/** notes.json holds every note at once: read whole, so bounded by more than any account's notes take. */
const MAX_EXPORT_BYTES = 512 * 2 ** 20
const PROBE_BYTES = 64 * 1024

/** source/notes.json (at the root or under one top folder), or a notes.json given alone. */
function notesEntry(archive: Archive): ArchiveEntry | undefined {
  return (
    archive.entries.find((entry) => /^([^/]+\/)?source\/notes\.json$/.test(entry.path)) ??
    archive.entries.find((entry) => baseName(entry.path) === 'notes.json' && !entry.path.includes('/'))
  )
}

/** The title and the text of a Simplenote note's content: its first line, and the rest without leading blank lines. */
export function splitContent(content: string, markdown: boolean): { title: string; content: string } {
  const newline = content.search(/\r?\n/)
  const first = newline === -1 ? content : content.slice(0, newline)
  const rest = newline === -1 ? '' : content.slice(newline).replace(/^(?:[ \t]*\r?\n)+/, '')
  let title = first.trim()
  // A Markdown note often starts with a heading: its marks are not part of the title.
  if (markdown) title = title.replace(/^#{1,6}[ \t]+/, '').replace(/[ \t]+#+$/, '')
  return { title, content: rest }
}

const dateOf = (value: unknown) => (typeof value === 'string' ? isoDate(new Date(value)) : undefined)

export function simplenoteNote(note: Record<string, unknown>, trashed: boolean): ImportedNote | { reason: string } {
  if (Buffer.byteLength(JSON.stringify(note)) > MAX_SOURCE_NOTE_BYTES) return { reason: 'too large' }
  const id = stringField(note.id)
  if (id === '') return { reason: 'it has no id' }
  if (typeof note.content !== 'string') return { reason: 'content is not text' }
  const createdOn = dateOf(note.creationDate)
  if (createdOn === undefined) return { reason: 'creationDate is missing or not a date' }
  const updatedOn = dateOf(note.lastModified)
  if (updatedOn === undefined) return { reason: 'lastModified is missing or not a date' }
  const { title, content } = splitContent(note.content, note.markdown === true)
  const tags: string[] = []
  for (const tag of Array.isArray(note.tags) ? note.tags : [])
    if (typeof tag === 'string' && tag.trim() !== '' && !tags.includes(tag.trim())) tags.push(tag.trim())
  return {
    key: `simplenote:${id}`,
    label: title !== '' ? title : id,
    title,
    content,
    tags,
    isPinned: note.pinned === true,
    trashed,
    createdOn,
    updatedOn,
    files: [],
  }
}

async function* simplenoteItems(archive: Archive): AsyncGenerator<ImportEvent> {
  const entry = notesEntry(archive)
  if (!entry) throw new MalformedImportError(NAME, 'no source/notes.json in it')
  if (entry.size > MAX_EXPORT_BYTES) throw new MalformedImportError(NAME, `${entry.path} is larger than we read`)
  let json: unknown
  try {
    json = JSON.parse((await readEntryBytes(entry, MAX_EXPORT_BYTES)).toString('utf8').replace(/^\uFEFF/, ''))
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err
    throw new MalformedImportError(NAME, `${entry.path} is not valid JSON (${err.message})`)
  }
  if (!isObject(json) || !(Array.isArray(json.activeNotes) || Array.isArray(json.trashedNotes)))
    throw new MalformedImportError(NAME, `${entry.path} holds no activeNotes or trashedNotes list`)
  for (const [list, trashed] of [
    [json.activeNotes, false],
    [json.trashedNotes, true],
  ] as const) {
    if (!Array.isArray(list)) continue
    for (const [index, item] of list.entries()) {
      const where = `${trashed ? 'trashedNotes' : 'activeNotes'}[${index}]`
      if (!isObject(item)) {
        yield { skipped: { label: where, reason: 'not a JSON object' } }
        continue
      }
      const note = simplenoteNote(item, trashed)
      if ('reason' in note) yield { skipped: { label: stringField(item.id) || where, reason: note.reason } }
      else yield { note }
    }
  }
}

export const simplenoteFormat: ArchiveFormat = {
  format: 'simplenote',
  async probe(archive) {
    const entry = notesEntry(archive)
    if (!entry) return false
    const head = await entryHead(entry, PROBE_BYTES)
    return /^\uFEFF?\s*\{\s*"(activeNotes|trashedNotes)"\s*:/.test(head)
  },
  source: (archive) => archiveSource('simplenote', archive, () => simplenoteItems(archive)),
}
