// The Markdown export: a zip of one Markdown file per note (YAML front matter, then the note's text), the trash and
// kept history when asked for, every attachment's bytes, and manifest.json last (docs/migration.md, "Export").
// Entries go into the zip one at a time, each only once the client has taken the one before: memory stays flat.
import { Readable } from 'node:stream'
import type { NoteRecord, StoredRevisionRecord } from '../../note-shape.js'
import { UniqueNames, safeFileName } from './file-names.js'
import type { AccountExport } from './export-input.js'
import { frontMatter } from './front-matter.js'
import { type ZipOut, zipOut, zipTime } from './zip-out.js'

export const MARKDOWN_EXPORT_FORMAT = 'notes-service-markdown'
export const MARKDOWN_EXPORT_VERSION = 1

export type MarkdownExportInput = AccountExport

export interface ManifestAttachment {
  id: string
  name: string
  type: string
  size: number
  sha256: string
  createdOn: string
  path: string
}

export interface MarkdownManifest {
  format: typeof MARKDOWN_EXPORT_FORMAT
  version: number
  exportedOn: string
  notes: { id: string; path: string }[]
  trash: { id: string; path: string }[]
  history: { id: string; noteId: string; path: string }[]
  attachments: ManifestAttachment[]
}

/**
 * Links to attachments as the service writes them (`/attachments/<id>/`), not already part of a longer path or URL:
 * the start of a link target, of an HTML attribute, or of a word.
 */
const ATTACHMENT_URL = /(^|[\s(<"'[=])\/attachments\/(?=[^/\s]+\/)/g

/** `content` with every attachment URL made relative to a file `depth` folders below the zip's root. */
export function relativeAttachmentLinks(content: string, depth: number): string {
  const up = '../'.repeat(depth)
  return content.replace(ATTACHMENT_URL, (_all, before: string) => `${before}${up}attachments/`)
}

/** A time as part of a file name: ISO 8601 with `-` for the `:` Windows refuses. */
export const fileNameTime = (iso: string): string => iso.replace(/:/g, '-')

/** Types worth compressing; the rest (pictures, PDFs, archives) are mostly compressed already. */
const COMPRESSIBLE = /^(text\/|application\/(json|xml|javascript|x-yaml|yaml)|image\/svg)/

function noteFile(note: NoteRecord, extra: Record<string, string>, depth: number): Buffer {
  const properties = {
    id: note._id,
    title: note.title,
    tags: note.tags,
    pinned: note.isPinned,
    created: note.createdOn,
    updated: note.updatedOn,
    ...extra,
  }
  return Buffer.from(frontMatter(properties) + relativeAttachmentLinks(note.content, depth), 'utf8')
}

function revisionFile(revision: StoredRevisionRecord): Buffer {
  const properties = {
    id: revision._id,
    noteId: revision.noteId,
    title: revision.title,
    tags: revision.tags,
    pinned: revision.isPinned,
    edited: revision.editedOn,
    replaced: revision.replacedOn,
  }
  return Buffer.from(frontMatter(properties) + relativeAttachmentLinks(revision.content, 2), 'utf8')
}

/** The zip as a stream; an error of any source destroys it with that error. */
export function markdownExport(input: MarkdownExportInput): Readable {
  return zipOut((zip) => writeEntries(zip, input))
}

async function writeEntries(zip: ZipOut, input: MarkdownExportInput): Promise<void> {
  const manifest: MarkdownManifest = {
    format: MARKDOWN_EXPORT_FORMAT,
    version: MARKDOWN_EXPORT_VERSION,
    exportedOn: input.exportedOn,
    notes: [],
    trash: [],
    history: [],
    attachments: [],
  }
  const text = (bytes: Buffer, path: string, time: string) => zip.addBytes(bytes, path, zipTime(time))
  const noteNames = new UniqueNames()
  for await (const note of input.notes) {
    const path = `notes/${noteNames.name(note.title, '.md')}`
    await text(noteFile(note, {}, 1), path, note.updatedOn)
    manifest.notes.push({ id: note._id, path })
  }
  if (input.trash) {
    const trashNames = new UniqueNames()
    for await (const note of input.trash) {
      const path = `trash/${trashNames.name(note.title, '.md')}`
      await text(noteFile(note, { deleted: note.deletedOn }, 1), path, note.deletedOn)
      manifest.trash.push({ id: note._id, path })
    }
  }
  if (input.history) {
    const folders = new UniqueNames()
    const perNote = new Map<string, { folder: string; names: UniqueNames }>()
    for await (const revision of input.history) {
      let place = perNote.get(revision.noteId)
      if (!place) {
        place = { folder: folders.name(revision.noteId, ''), names: new UniqueNames() }
        perNote.set(revision.noteId, place)
      }
      const path = `history/${place.folder}/${place.names.name(fileNameTime(revision.editedOn), '.md')}`
      await text(revisionFile(revision), path, revision.editedOn)
      manifest.history.push({ id: revision._id, noteId: revision.noteId, path })
    }
  }
  const folders = new UniqueNames()
  for await (const attachment of input.attachments) {
    const { record } = attachment
    const path = `attachments/${folders.name(record._id, '')}/${safeFileName(record.name)}`
    const options = { mtime: zipTime(record.createdOn), compress: COMPRESSIBLE.test(record.type), size: record.size }
    await zip.add(await attachment.open(), path, options)
    const { _id: id, name, type, size, sha256, createdOn } = record
    manifest.attachments.push({ id, name, type, size, sha256, createdOn, path })
  }
  await zip.addBytes(JSON.stringify(manifest, null, 1), 'manifest.json', zipTime(input.exportedOn))
}
