// The Evernote export reader (.enex, docs/migration.md "From other notes apps"): every .enex file of the archive in
// path order, streamed note by note; ENML becomes Markdown and resources become the note's files.
import { createHash } from 'node:crypto'
import { open, rm } from 'node:fs/promises'
import type { Archive, ArchiveEntry } from './archive.js'
import {
  type ArchiveFormat,
  type ImportEvent,
  type ImportSource,
  type ImportedFile,
  type ReadOptions,
} from './items.js'
import { EnexParser, type ParsedNote } from './enex-parser.js'
import type { ResourceSink } from './enex-resource.js'
import { type MediaLink, enmlToMarkdown, fileLink } from './enml.js'

const PROBE_BYTES = 4096
const MARKER = '<en-export'

/** Names for a resource that has no file name, by its mime type. */
const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'application/pdf': 'pdf',
  'text/plain': 'txt',
  'text/html': 'html',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/amr': 'amr',
  'video/mp4': 'mp4',
}

/** A resource's name when `<file-name>` is missing: "image.png", "file.pdf", "file". */
export function fallbackName(mime: string): string {
  const base = mime.startsWith('image/') ? 'image' : 'file'
  const extension = EXTENSIONS[mime.toLowerCase()]
  return extension ? `${base}.${extension}` : base
}

/** `YYYYMMDDTHHMMSSZ` as ISO 8601, or undefined when it is not one. */
export function enexDate(value: string): string | undefined {
  const parts = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value)
  if (!parts) return undefined
  const iso = `${parts[1]}-${parts[2]}-${parts[3]}T${parts[4]}:${parts[5]}:${parts[6]}.000Z`
  // A date that does not exist (February 30th, hour 24) reads as another one or none: only an exact round trip counts.
  const date = new Date(iso)
  return Number.isFinite(date.getTime()) && date.toISOString() === iso ? iso : undefined
}

/** The first bytes of an entry, at most PROBE_BYTES. */
async function head(entry: ArchiveEntry): Promise<string> {
  const stream = await entry.open()
  const chunks: Buffer[] = []
  let length = 0
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer)
      length += (chunk as Buffer).length
      if (length >= PROBE_BYTES) break
    }
  } finally {
    stream.destroy()
  }
  return Buffer.concat(chunks).subarray(0, PROBE_BYTES).toString('latin1')
}

function byPath(a: ArchiveEntry, b: ArchiveEntry): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0
}

/** The .enex entries; when there is none, the single entry (a file uploaded under another name) if it is one. */
async function enexEntries(archive: Archive): Promise<ArchiveEntry[]> {
  const named = archive.entries.filter((entry) => entry.path.toLowerCase().endsWith('.enex'))
  if (named.length > 0) return named.sort(byPath)
  const [only] = archive.entries
  if (archive.entries.length === 1 && only && (await head(only)).includes(MARKER)) return [only]
  return []
}

/** What an item is called in messages: its title, or its position, and its file. */
function labelOf(note: ParsedNote, path: string): string {
  return `${note.title || `note ${note.index}`} (${path})`
}

/** The same for every run over the same note: its title, created date, ENML and its resources' MD5s. */
function keyOf(note: ParsedNote, md5s: string[]): string {
  const hash = createHash('sha256')
  for (const part of [note.title, note.created ?? '', note.enml, ...md5s]) hash.update(`${part.length}:${part}\n`)
  return `enex:${hash.digest('hex')}`
}

class EnexSource implements ImportSource {
  readonly format = 'enex' as const
  /** Scratch files written and not yet opened by the caller; close() removes them. */
  private readonly unopened = new Set<string>()
  private scratchFiles = 0
  private closed = false

  constructor(
    private readonly archive: Archive,
    private readonly options: ReadOptions,
  ) {}

  async *items(): AsyncIterable<ImportEvent> {
    for (const entry of await enexEntries(this.archive)) yield* this.readEntry(entry)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await Promise.all([...this.unopened].map((path) => rm(path, { force: true })))
    this.unopened.clear()
    await this.archive.close()
  }

  private async *readEntry(entry: ArchiveEntry): AsyncIterable<ImportEvent> {
    const parser = new EnexParser(entry.path, this.options.scratchDir, () => `enex-${(this.scratchFiles += 1)}.bin`)
    const stream = await entry.open()
    try {
      for await (const chunk of stream) {
        parser.write(chunk as Buffer)
        await parser.drained()
        for (const note of parser.takeNotes()) yield await this.event(note, entry.path)
      }
      parser.end()
      for (const note of parser.takeNotes()) yield await this.event(note, entry.path)
    } catch (err) {
      await removeAll(parser.unfinishedSinks())
      throw err
    } finally {
      stream.destroy()
    }
  }

  /** The note as an item, or why it is skipped; a skipped note's scratch files are removed at once. */
  private async event(note: ParsedNote, path: string): Promise<ImportEvent> {
    const label = labelOf(note, path)
    const stored = await Promise.allSettled(note.resources.map((resource) => resource.stored))
    const failed = stored.find((result) => result.status === 'rejected')
    if (failed) {
      // Scratch space that cannot be written (a full disk) is the server's failure, not this note's.
      await removeAll(note.sinks)
      throw failed.reason
    }
    let problem = note.problem
    const createdOn = note.created === undefined ? undefined : enexDate(note.created)
    const updatedOn = note.updated === undefined ? undefined : enexDate(note.updated)
    if (problem === undefined && note.created !== undefined && !createdOn)
      problem = `its created date "${note.created}" cannot be read`
    if (problem === undefined && note.updated !== undefined && !updatedOn)
      problem = `its updated date "${note.updated}" cannot be read`
    if (problem !== undefined) {
      await removeAll(note.sinks)
      return { skipped: { label, reason: problem } }
    }

    const files: ImportedFile[] = []
    const media = new Map<string, MediaLink>()
    const links: MediaLink[] = []
    const duplicates: string[] = []
    note.resources.forEach((resource, i) => {
      const result = stored[i]
      // A resource whose data is not base64 is left out; an en-media naming it shows the missing placeholder.
      if (result?.status !== 'fulfilled' || !result.value) return
      const { md5, path: scratch } = result.value
      if (media.has(md5)) return duplicates.push(scratch)
      const link = { ref: `notes-import:file:${files.length}`, name: resource.fileName ?? '', mime: resource.mime }
      link.name ||= fallbackName(resource.mime)
      media.set(md5, link)
      links.push(link)
      this.unopened.add(scratch)
      files.push({ ref: link.ref, name: link.name, open: () => this.openScratch(scratch) })
    })
    await Promise.all(duplicates.map((scratch) => rm(scratch, { force: true })))

    let content: string
    try {
      content = enmlToMarkdown(note.enml, media)
    } catch (err) {
      await removeAll(note.sinks)
      return { skipped: { label, reason: `its ENML cannot be read (${(err as Error).message})` } }
    }
    const unreferenced = links.filter((link) => !content.includes(`(${link.ref})`)).map(fileLink)
    if (unreferenced.length > 0) content = [content, ...unreferenced].filter((part) => part !== '').join('\n\n')

    const md5s = [...media.keys()]
    return {
      note: {
        key: keyOf(note, md5s),
        label,
        title: note.title,
        content,
        tags: note.tags,
        isPinned: false,
        trashed: false,
        createdOn,
        updatedOn,
        files,
      },
    }
  }

  /** Opens a scratch file and removes its name at once: the open stream still reads it, and nothing is left over. */
  private async openScratch(path: string) {
    const handle = await open(path, 'r')
    this.unopened.delete(path)
    await rm(path, { force: true })
    return handle.createReadStream()
  }
}

async function removeAll(sinks: ResourceSink[]): Promise<void> {
  await Promise.all(sinks.map((sink) => sink.remove()))
}

export const enexFormat: ArchiveFormat = {
  format: 'enex',
  async probe(archive) {
    if (archive.entries.some((entry) => entry.path.toLowerCase().endsWith('.enex'))) return true
    return (await enexEntries(archive)).length > 0
  },
  source(archive, options) {
    return new EnexSource(archive, options)
  },
}
