// What every import reader yields, whatever the format it reads (docs/migration.md, "From other notes apps"): notes
// in our shape with their files beside them, and the items it had to skip, each with its reason. The import service
// (services/note-import.ts) writes them; a reader never touches a store.
import type { Readable } from 'node:stream'
import type { SkippedItem } from '../../import-shape.js'
import type { Archive } from './archive.js'

/** The formats the import reads, each named as it is in messages and in docs/migration.md. */
export const IMPORT_FORMATS = {
  keep: 'Google Keep',
  enex: 'Evernote',
  markdown: 'Markdown',
  simplenote: 'Simplenote',
  'standard-notes': 'Standard Notes',
  'notes-service-markdown': 'notes-service Markdown export',
  'notes-service-json': 'notes-service JSON export',
} as const

export type ImportFormat = keyof typeof IMPORT_FORMATS

/** A file a note holds: it becomes an attachment, and every `ref` in the note's text becomes its URL. */
export interface ImportedFile {
  /** A token the reader wrote into the note's content where the file's URL goes; unique within the note. */
  ref: string
  /** The file's name as the source gives it (an upload's rules apply to it). */
  name: string
  /** The file's bytes; called at most once. */
  open(): Promise<Readable>
}

/** One note as a reader found it. */
export interface ImportedNote {
  /**
   * What names this item in its source, the same in every run over the same source (a path, the source's own id):
   * a second import of the same file finds its notes by it and adds nothing.
   */
  key: string
  /** Where the item is, for a person: a path, a title, an index. */
  label: string
  title: string
  /** Markdown, files named by their `ref`. */
  content: string
  tags: string[]
  isPinned: boolean
  /** Goes to the trash rather than among the notes. */
  trashed: boolean
  /** ISO 8601; when missing, the time of the import. */
  createdOn?: string | undefined
  updatedOn?: string | undefined
  files: ImportedFile[]
}

/** An item a reader could not make a note of; the import goes on with the next one. */
export type { SkippedItem }

export type ImportEvent = { note: ImportedNote } | { skipped: SkippedItem }

/** A file the import can read: its format, and its items in order. */
export interface ImportSource {
  format: ImportFormat
  /** Items as they are read; a malformed file throws MalformedImportError. */
  items(): AsyncIterable<ImportEvent>
  /** Frees what it holds (an open zip, temporary files); safe to call more than once. */
  close(): Promise<void>
}

/** The whole file cannot be imported: the message names the format and the problem. */
export class MalformedImportError extends Error {
  constructor(format: string, problem: string) {
    super(`${format}: ${problem}`)
    this.name = 'MalformedImportError'
  }
}

/** A date of the source as ISO 8601, or undefined when it cannot be read: the reader then skips the item. */
export function isoDate(value: Date): string | undefined {
  return Number.isFinite(value.getTime()) ? value.toISOString() : undefined
}

/** What a reader may use while it reads: a folder of its own for scratch files, emptied by the caller afterwards. */
export interface ReadOptions {
  scratchDir: string
}

/**
 * One format the import reads. Every input is an Archive: a zip, a folder, or a single file (one entry, its name the
 * file's). `probe` tells by the archive's shape and a few bytes, never by a folder's name (Keep's is localized).
 */
export interface ArchiveFormat {
  format: ImportFormat
  probe(archive: Archive): Promise<boolean>
  source(archive: Archive, options: ReadOptions): ImportSource
}

/**
 * The most bytes a reader takes in for one note's text (ENML, Markdown, JSON): a larger item is skipped, unread,
 * as "too large". Well above what LIMITS.content allows once converted, so only what could never fit is skipped here.
 */
export const MAX_SOURCE_NOTE_BYTES = 4 * 2 ** 20
