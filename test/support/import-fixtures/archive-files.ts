// What every import reader's fixtures share: writing files as a zip (yazl) or a folder, opening either as an Archive,
// and reading a format's events into notes and skips, with each file's bytes read through its open().
import { mkdir, writeFile } from 'node:fs/promises'
import { createWriteStream } from 'node:fs'
import { dirname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import yazl from 'yazl'
import { type Archive, openFolder, openZip } from '../../../src/transfer/formats/archive.js'
import type { ArchiveFormat, ImportedNote, SkippedItem } from '../../../src/transfer/formats/items.js'

/** What a fixture says one of its notes becomes once read (the files only where the format has them). */
export interface ExpectedImport {
  key: string
  title: string
  /** With each file's ref written as the fixture's own helper writes it. */
  content: string
  tags: string[]
  isPinned: boolean
  trashed: boolean
  createdOn: string
  updatedOn: string
  files: { name: string; bytes: Buffer }[]
}

export interface FixtureFile {
  path: string
  bytes: Buffer | string
}

export async function writeZip(file: string, files: FixtureFile[]): Promise<string> {
  const zip = new yazl.ZipFile()
  for (const { path, bytes } of files) zip.addBuffer(Buffer.from(bytes), path, { mtime: new Date(2024, 0, 1) })
  zip.end()
  await pipeline(zip.outputStream, createWriteStream(file))
  return file
}

export async function writeFolder(dir: string, files: FixtureFile[]): Promise<string> {
  for (const { path, bytes } of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true })
    await writeFile(join(dir, path), bytes)
  }
  return dir
}

/** The files as a zip and as a folder, both under `root`, each opened. */
export async function bothArchives(root: string, files: FixtureFile[]): Promise<{ zip: Archive; folder: Archive }> {
  await mkdir(root, { recursive: true })
  const zip = await openZip(await writeZip(join(root, 'export.zip'), files))
  const folder = await openFolder(await writeFolder(join(root, 'folder'), files))
  return { zip, folder }
}

/** A note as read, its files' bytes read once through open(). */
export type ReadNote = Omit<ImportedNote, 'files'> & { files: { ref: string; name: string; bytes: Buffer }[] }

/** Every event of the format's source over the archive; the source is closed afterwards. */
export async function readAll(
  format: ArchiveFormat,
  archive: Archive,
): Promise<{ notes: ReadNote[]; skipped: SkippedItem[] }> {
  const source = format.source(archive, { scratchDir: '/nonexistent' })
  const notes: ReadNote[] = []
  const skipped: SkippedItem[] = []
  try {
    for await (const event of source.items()) {
      if ('skipped' in event) {
        skipped.push(event.skipped)
        continue
      }
      const files = []
      for (const file of event.note.files) {
        const chunks: Buffer[] = []
        for await (const chunk of await file.open()) chunks.push(chunk as Buffer)
        files.push({ ref: file.ref, name: file.name, bytes: Buffer.concat(chunks) })
      }
      notes.push({ ...event.note, files })
    }
  } finally {
    await source.close()
    await source.close()
  }
  return { notes, skipped }
}

/** The note's content with each file's ref written as the service writes its URL, so tests compare it whole. */
export function withUrls(note: ReadNote): string {
  let content = note.content
  for (const file of note.files)
    content = content.split(file.ref).join(`/attachments/ID/${encodeURIComponent(file.name)}`)
  return content
}
