// The Markdown export's inputs and outputs for tests: records as the store gives them, the zip written to a file
// and opened again, and every note its reader yields.
import { createWriteStream } from 'node:fs'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { AttachmentRecord } from '../../src/attachment-shape.js'
import { type Archive, openZip, readEntryBytes } from '../../src/transfer/formats/archive.js'
import type { ArchiveFormat, ImportedNote, SkippedItem } from '../../src/transfer/formats/items.js'
import { type MarkdownExportInput, markdownExport } from '../../src/transfer/formats/markdown-export.js'
import type { NoteRecord } from '../../src/note-shape.js'

export async function* listed<T>(items: Iterable<T>): AsyncIterable<T> {
  for (const item of items) yield item
}

export function noteRecord(fields: Partial<NoteRecord> & { _id: string }): NoteRecord {
  return {
    title: '',
    content: '',
    tags: [],
    isPinned: false,
    userId: 'u1',
    createdOn: '2024-01-02T03:04:05.678Z',
    updatedOn: '2024-02-03T04:05:06.789Z',
    ...fields,
  }
}

export interface AttachmentFixture {
  record: AttachmentRecord
  bytes: Buffer
}

export function attachmentFixture(id: string, name: string, bytes: Buffer, type = 'application/octet-stream') {
  const sha256 = createHash('sha256').update(bytes).digest('hex')
  const record: AttachmentRecord = {
    _id: id,
    name,
    type,
    size: bytes.length,
    sha256,
    createdOn: '2024-01-01T00:00:00.000Z',
    userId: 'u1',
    blobKey: `blob-${id}`,
  }
  return { record, bytes }
}

export const attachmentSources = (attachments: AttachmentFixture[]) =>
  listed(attachments.map(({ record, bytes }) => ({ record, open: async () => Readable.from([bytes]) })))

/** The export of `input` written to `dir`/`name`, opened as an archive. */
export async function exportedZip(input: MarkdownExportInput, dir: string, name = 'export.zip'): Promise<Archive> {
  const file = join(dir, name)
  await pipeline(markdownExport(input), createWriteStream(file))
  return openZip(file)
}

export async function entryText(archive: Archive, path: string): Promise<string> {
  const entry = archive.entries.find((candidate) => candidate.path === path)
  if (!entry) throw new Error(`no entry ${path}`)
  return (await readEntryBytes(entry, 2 ** 30)).toString('utf8')
}

/** Every note and skipped item `format` reads from `archive`, which it closes; files read at once. */
export async function readAll(format: ArchiveFormat, archive: Archive, scratchDir = '/nonexistent') {
  const notes: ImportedNote[] = []
  const skipped: SkippedItem[] = []
  const source = format.source(archive, { scratchDir })
  try {
    for await (const event of source.items()) {
      if ('note' in event) {
        // The archive closes below: each file is read now, and opens afterwards from memory.
        for (const file of event.note.files) {
          const bytes = await streamBytes(await file.open())
          file.open = async () => Readable.from([bytes])
        }
        notes.push(event.note)
      } else skipped.push(event.skipped)
    }
  } finally {
    await source.close()
  }
  return { notes, skipped }
}

export async function streamBytes(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}
