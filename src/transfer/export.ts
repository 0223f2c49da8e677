// notes-service export: mongoexport's shape, one keyset page in memory at a time. Standard output is often a
// terminal, so the JSON is escaped for one (unicode.ts): the same data to a JSON reader, the same bytes in a file.
import { createWriteStream } from 'node:fs'
import { Readable, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { emailKeyOf } from '../services/accounts.js'
import type {
  NoteRecord,
  Store,
  StoredRevisionRecord,
  TransferStore,
  TrashedNoteRecord,
  UserRecord,
} from '../store/types.js'
import { escapeJsonForTerminal } from '../unicode.js'
import { type EjsonMode, noteToEjson, revisionToEjson, trashedNoteToEjson, userToEjson } from './records.js'

type ExportFormat = 'lines' | 'array'
const PAGE_SIZE = 1000

export interface ExportOptions {
  store: Store & TransferStore
  /** A file path, or '-' for standard output; the collection is not written when undefined. */
  usersOut?: string
  notesOut?: string
  /** notes-service's own collections: the trash (notes and deletedOn) and every note's revisions. */
  trashOut?: string
  historyOut?: string
  /** Only this user (matched like a login: trimmed, case-insensitive) and their notes, trash and history. */
  userEmail?: string
  /** Include the argon2id hashes as `password`, so the accounts can be imported elsewhere. */
  withPasswordHashes?: boolean
  format?: ExportFormat
  mode?: EjsonMode
}

export class UnknownUserError extends Error {}

/** Keyset pages, each after the last record of the one before. */
async function* paged<T>(page: (after: T | undefined) => Promise<T[]>): AsyncGenerator<T[]> {
  let after: T | undefined
  for (;;) {
    const records = await page(after)
    if (records.length === 0) return
    yield records
    after = records[records.length - 1]
  }
}

/** One string per page: fewer, larger writes. */
async function* render<T>(
  pages: AsyncIterable<T[]>,
  toText: (record: T) => string,
  format: ExportFormat,
  count: () => void,
): AsyncGenerator<string> {
  let first = true
  if (format === 'array') yield '['
  for await (const records of pages) {
    let text = ''
    for (const record of records) {
      if (format === 'array') text += first ? toText(record) : `,\n${toText(record)}`
      else text += `${toText(record)}\n`
      first = false
      count()
    }
    yield escapeJsonForTerminal(text)
  }
  if (format === 'array') yield ']\n'
}

async function write(target: string, chunks: AsyncIterable<string>): Promise<void> {
  const source = Readable.from(chunks)
  if (target === '-') await pipeline(source, process.stdout as Writable, { end: false })
  else await pipeline(source, createWriteStream(target))
}

export async function exportData(
  options: ExportOptions,
): Promise<{ users: number; notes: number; trash: number; revisions: number }> {
  const { store, format = 'lines', mode = 'relaxed', withPasswordHashes = false } = options
  let only: UserRecord | undefined
  if (options.userEmail !== undefined) {
    only = await store.findUserByEmailKey(emailKeyOf(options.userEmail))
    if (!only) throw new UnknownUserError(`no user has the email "${options.userEmail}"`)
  }
  const summary = { users: 0, notes: 0, trash: 0, revisions: 0 }
  if (options.usersOut !== undefined) {
    const pages: AsyncIterable<UserRecord[]> = only
      ? Readable.from([[only]])
      : paged<UserRecord>((after) => store.usersAfter(after?._id, PAGE_SIZE))
    await write(
      options.usersOut,
      render(
        pages,
        (u) => userToEjson(u, mode, withPasswordHashes),
        format,
        () => summary.users++,
      ),
    )
  }
  if (options.notesOut !== undefined) {
    const pages = paged<NoteRecord>((after) => store.notesAfter(after?._id, PAGE_SIZE, only?._id))
    await write(
      options.notesOut,
      render(
        pages,
        (n) => noteToEjson(n, mode),
        format,
        () => summary.notes++,
      ),
    )
  }
  if (options.trashOut !== undefined) {
    const pages = paged<TrashedNoteRecord>((after) => store.trashAfter(after?._id, PAGE_SIZE, only?._id))
    await write(
      options.trashOut,
      render(
        pages,
        (n) => trashedNoteToEjson(n, mode),
        format,
        () => summary.trash++,
      ),
    )
  }
  if (options.historyOut !== undefined) {
    const pages = paged<StoredRevisionRecord>((after) => store.revisionsAfter(after, PAGE_SIZE, only?._id))
    await write(
      options.historyOut,
      render(
        pages,
        (r) => revisionToEjson(r, mode),
        format,
        () => summary.revisions++,
      ),
    )
  }
  return summary
}
