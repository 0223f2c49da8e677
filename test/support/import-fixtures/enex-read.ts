// Reading Evernote exports in tests: an in-memory archive streamed in small chunks, and every event of a read with
// each note's files already read (the source removes unopened scratch files when it closes).
import { Readable } from 'node:stream'
import type { Archive } from '../../../src/transfer/formats/archive.js'
import { enexFormat } from '../../../src/transfer/formats/enex.js'
import type { ImportedFile, ImportedNote, SkippedItem } from '../../../src/transfer/formats/items.js'

export const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')
export const JPEG = Buffer.concat([Buffer.from('ffd8ffe000104a464946', 'hex'), Buffer.alloc(300, 7)])
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n')

/** An archive of in-memory files, each streamed in small chunks so that text and sequences are cut between them. */
export function memoryArchive(files: Record<string, Buffer>, chunk = 997): Archive {
  const entries = Object.entries(files).map(([path, bytes]) => ({
    path,
    size: bytes.length,
    open: async () => {
      const pieces: Buffer[] = []
      for (let i = 0; i < bytes.length; i += chunk) pieces.push(bytes.subarray(i, i + chunk))
      return Readable.from(pieces)
    },
  }))
  return { entries, close: async () => {} }
}

export interface Read {
  notes: ImportedNote[]
  skipped: SkippedItem[]
}

export async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** The file, read while its note is the current item (close() removes what was not opened). */
async function readNow(file: ImportedFile): Promise<ImportedFile> {
  const bytes = await bytesOf(await file.open())
  return { ...file, open: async () => Readable.from([bytes]) }
}

/** Every event of the archive's .enex files, each note's files read while it is the current item. */
export async function readArchive(archive: Archive, scratchDir: string): Promise<Read> {
  const source = enexFormat.source(archive, { scratchDir })
  const read: Read = { notes: [], skipped: [] }
  try {
    for await (const event of source.items()) {
      if ('skipped' in event) read.skipped.push(event.skipped)
      else read.notes.push({ ...event.note, files: await Promise.all(event.note.files.map(readNow)) })
    }
  } finally {
    await source.close()
  }
  return read
}

export function readEnex(bytes: Buffer, scratchDir: string, name = 'My Notes.enex'): Promise<Read> {
  return readArchive(memoryArchive({ [name]: bytes }), scratchDir)
}
