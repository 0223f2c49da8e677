// notes-service's own JSON export read as an import from another account (docs/migration.md, "notes-service's own exports"):
// notes.json, trash.json and attachments/attachments.json as `export` writes them (JSON lines, one array, or
// --pretty), each attachment's bytes beside its record, linked from a note's Markdown by attachmentUrl().
import type { Readable } from 'node:stream'
import { attachmentUrl } from '../../attachment-shape.js'
import { type ExportedAttachment, attachmentFromDocument } from '../attachment-records.js'
import { type RawRecord, splitJson } from '../json-splitter.js'
import { linesOf } from '../source.js'
import { RecordError, asDocument, noteFromDocument, parseEjson, trashedNoteFromDocument } from '../records.js'
import { type Archive, type ArchiveEntry, readEntryBytes } from './archive.js'
import {
  type ArchiveFormat,
  IMPORT_FORMATS,
  type ImportEvent,
  type ImportedFile,
  MAX_SOURCE_NOTE_BYTES,
  MalformedImportError,
  type SkippedItem,
} from './items.js'
import { JSON_EXPORT_FORMAT } from './json-export.js'
import { archiveSource, baseName, folderOf } from './reader-kit.js'

const NAME = IMPORT_FORMATS['notes-service-json']
const ATTACHMENTS_FILE = 'attachments.json'

/** The folder holding notes.json: the root or one top folder; undefined when there is none. */
function exportFolder(archive: Archive): string | undefined {
  const notes = archive.entries.find((entry) => /^([^/]+\/)?notes\.json$/.test(entry.path))
  return notes ? folderOf(notes.path) : undefined
}

const within = (folder: string, path: string) => (folder === '' ? path : `${folder}/${path}`)

/** The export's files: notes.json, trash.json when there, and the attachments' folder (attachments/ first). */
function exportFiles(archive: Archive, folder: string) {
  const byPath = new Map(archive.entries.map((entry) => [entry.path, entry]))
  const attachments =
    byPath.get(within(folder, `attachments/${ATTACHMENTS_FILE}`)) ??
    archive.entries.find(
      (entry) => baseName(entry.path) === ATTACHMENTS_FILE && folderOf(folderOf(entry.path)) === folder,
    )
  return {
    notes: byPath.get(within(folder, 'notes.json')),
    trash: byPath.get(within(folder, 'trash.json')),
    attachments,
    byPath,
  }
}

/**
 * The entry's records in the shape `export` or mongoexport wrote it, told as source.ts tells a file: '[' starts one
 * array, a line holding only '{' starts --pretty values, anything else is JSON lines (a bad line is one record).
 */
async function* recordsOf(entry: ArchiveEntry): AsyncGenerator<RawRecord> {
  const stream: Readable = await entry.open()
  stream.setEncoding('utf8')
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<string>
  try {
    let head = ''
    const start = () => head.replace(/^\uFEFF/, '').trimStart()
    for (;;) {
      // The first line tells '{' alone on its line from a JSON line.
      const text = start()
      if (text.startsWith('[') || text.includes('\n')) break
      const next = await chunks.next()
      if (next.done) break
      head += next.value
    }
    async function* rest() {
      yield head
      for (;;) {
        const next = await chunks.next()
        if (next.done) return
        yield next.value
      }
    }
    if (start().startsWith('[')) return yield* splitJson(rest(), true)
    if (/^\{[ \t\r]*\n/.test(start())) return yield* splitJson(rest(), false)
    let line = 0
    let index = 0
    for await (const text of linesOf(rest())) {
      line++
      if (text.trim() === '') continue
      yield { line, index: index++, text: line === 1 ? text.replace(/^\uFEFF/, '') : text }
    }
  } finally {
    stream.destroy()
  }
}

/** The attachments' records by id; a record the export could not have written is left out, its links left alone. */
async function attachmentRecords(entry: ArchiveEntry | undefined): Promise<Map<string, ExportedAttachment>> {
  const records = new Map<string, ExportedAttachment>()
  if (!entry) return records
  for await (const raw of recordsOf(entry)) {
    if (raw.fatal) throw new MalformedImportError(NAME, `${entry.path} line ${raw.line}: ${raw.error}`)
    if (raw.text === undefined) continue
    try {
      const record = attachmentFromDocument(parseEjson(raw.text))
      records.set(record._id, record)
    } catch (err) {
      if (!(err instanceof RecordError)) throw err
    }
  }
  return records
}

/** The characters encodeURIComponent leaves in a name, and the escapes it writes. */
const ATTACHMENT_LINK = /\/attachments\/([0-9a-fA-F]{24})(\/[A-Za-z0-9\-_.!~*'()%]*)?/g

/** A link's text without closing parentheses it does not open: Markdown's, around the link. */
function balanced(text: string): string {
  let end = text.length
  const count = (s: string, c: string) => s.split(c).length - 1
  while (end > 0 && text[end - 1] === ')' && count(text.slice(0, end), ')') > count(text.slice(0, end), '(')) end--
  return text.slice(0, end)
}

/**
 * The note's links to attachments the export holds, each as one file. Every form of one attachment's link (with its
 * name, another name, or none) is written as the first form met, preferring attachmentUrl()'s, so each file has one
 * ref and no ref is the start of another.
 */
export function linkedFiles(
  content: string,
  records: Map<string, ExportedAttachment>,
  bytesOf: (id: string) => ArchiveEntry | undefined,
): { content: string; files: ImportedFile[] } {
  const chosen = new Map<string, string>()
  /** The link's own text: attachmentUrl()'s when it starts so, else without the parentheses Markdown puts around it. */
  const formOf = (text: string, record: ExportedAttachment) =>
    text.startsWith(attachmentUrl(record)) ? attachmentUrl(record) : balanced(text)
  for (const match of content.matchAll(ATTACHMENT_LINK)) {
    const id = match[1]!.toLowerCase()
    const record = records.get(id)
    if (!record || !bytesOf(id)) continue
    const form = formOf(match[0], record)
    if (form === attachmentUrl(record) || !chosen.has(id)) chosen.set(id, form)
  }
  const rewritten = content.replace(ATTACHMENT_LINK, (text: string, rawId: string) => {
    const id = rawId.toLowerCase()
    const ref = chosen.get(id)
    if (ref === undefined) return text
    return ref + text.slice(formOf(text, records.get(id)!).length)
  })
  const files = [...chosen].map(([id, ref]) => {
    const entry = bytesOf(id)!
    return { ref, name: records.get(id)!.name, open: () => entry.open() }
  })
  return { content: rewritten, files }
}

async function* ownJsonItems(archive: Archive): AsyncGenerator<ImportEvent> {
  const folder = exportFolder(archive)
  if (folder === undefined) throw new MalformedImportError(NAME, 'no notes.json in it')
  const files = exportFiles(archive, folder)
  const records = await attachmentRecords(files.attachments)
  const bytesFolder = files.attachments ? folderOf(files.attachments.path) : ''
  const bytesOf = (id: string) => files.byPath.get(bytesFolder === '' ? id : `${bytesFolder}/${id}`)

  let read = 0
  let pending: SkippedItem[] = []
  for (const [entry, trashed] of [
    [files.notes!, false],
    [files.trash, true],
  ] as const) {
    if (!entry) continue
    for await (const raw of recordsOf(entry)) {
      const label = `${baseName(entry.path)} line ${raw.line}`
      if (raw.fatal) throw new MalformedImportError(NAME, `${label}: ${raw.error}`)
      let skip: string | undefined = raw.error
      if (raw.text !== undefined && Buffer.byteLength(raw.text) > MAX_SOURCE_NOTE_BYTES) skip = 'too large'
      let doc: unknown
      if (skip === undefined) {
        try {
          doc = asDocument(parseEjson(raw.text!))
        } catch (err) {
          if (!(err instanceof RecordError)) throw err
          pending.push({ label, reason: err.message })
          continue
        }
      }
      // Records that are JSON make the file an export; until one is, a failure may mean it is not one at all.
      read++
      for (const skipped of pending) yield { skipped }
      pending = []
      if (skip !== undefined) {
        yield { skipped: { label, reason: skip } }
        continue
      }
      let note
      try {
        note = trashed ? trashedNoteFromDocument(doc) : noteFromDocument(doc)
      } catch (err) {
        if (!(err instanceof RecordError)) throw err
        yield { skipped: { label, reason: err.message } }
        continue
      }
      const linked = linkedFiles(note.content, records, bytesOf)
      yield {
        note: {
          key: `notes-service:${note._id}`,
          label: note.title.trim() !== '' ? note.title : label,
          title: note.title,
          content: linked.content,
          tags: note.tags,
          isPinned: note.isPinned,
          trashed,
          createdOn: note.createdOn,
          updatedOn: note.updatedOn,
          files: linked.files,
        },
      }
    }
  }
  if (read === 0 && pending.length > 0)
    throw new MalformedImportError(NAME, `${pending[0]!.label}: ${pending[0]!.reason}`)
  for (const skipped of pending) yield { skipped }
}

/** The first record of notes.json, read only as far as it goes; undefined when it is not JSON. */
async function firstRecord(entry: ArchiveEntry): Promise<unknown> {
  for await (const raw of recordsOf(entry)) {
    if (raw.text === undefined || Buffer.byteLength(raw.text) > MAX_SOURCE_NOTE_BYTES) return undefined
    try {
      return parseEjson(raw.text)
    } catch (err) {
      if (err instanceof RecordError) return undefined
      throw err
    }
  }
  return undefined
}

export const ownJsonFormat: ArchiveFormat = {
  format: 'notes-service-json',
  async probe(archive) {
    const folder = exportFolder(archive)
    const notes = folder === undefined ? undefined : exportFiles(archive, folder).notes
    if (!notes) return false
    const manifest = archive.entries.find((entry) => entry.path === within(folder!, 'manifest.json'))
    if (manifest && manifest.size < 64 * 1024) {
      const named = await readEntryBytes(manifest, 64 * 1024).then(
        (bytes) => (JSON.parse(bytes.toString('utf8')) as { format?: unknown }).format === JSON_EXPORT_FORMAT,
        () => false,
      )
      if (named) return true
    }
    const first = await firstRecord(notes)
    return typeof first === 'object' && first !== null && '_id' in first && 'userId' in first
  },
  source: (archive) => archiveSource('notes-service-json', archive, () => ownJsonItems(archive)),
}
