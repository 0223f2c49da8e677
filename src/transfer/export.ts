// notes-service export: mongoexport's shape, one keyset page in memory at a time. Standard output is often a
// terminal, so the JSON is escaped for one (unicode.ts): the same data to a JSON reader, the same bytes in a file.
import { Readable } from 'node:stream'
import { emailKeyOf } from '../services/accounts.js'
import type {
  NoteRecord,
  Store,
  StoredRevisionRecord,
  TransferStore,
  TrashedNoteRecord,
  UserRecord,
} from '../store/types.js'
import { type AttachmentsOut, exportAttachments } from './attachments-export.js'
import { type ExportFormat, PAGE_SIZE, paged, render, write } from './export-pages.js'
import { type EjsonMode, noteToEjson, revisionToEjson, trashedNoteToEjson, userToEjson } from './records.js'

export interface ExportOptions {
  store: Store & TransferStore
  /** A file path, or '-' for standard output; the collection is not written when undefined. */
  usersOut?: string
  notesOut?: string
  /** notes-service's own collections: the trash (notes and deletedOn) and every note's revisions. */
  trashOut?: string
  historyOut?: string
  /** The attachments' records and bytes, into a directory of their own (attachments-export.ts). */
  attachmentsOut?: AttachmentsOut
  /** Only this user (matched like a login: trimmed, case-insensitive) and their notes, trash and history. */
  userEmail?: string
  /** Include the argon2id hashes as `password`, so the accounts can be imported elsewhere. */
  withPasswordHashes?: boolean
  format?: ExportFormat
  mode?: EjsonMode
}

export class UnknownUserError extends Error {}

export async function exportData(options: ExportOptions): Promise<{
  users: number
  notes: number
  trash: number
  revisions: number
  attachments: number
  attachmentsLeftOut: number
}> {
  const { store, format = 'lines', mode = 'relaxed', withPasswordHashes = false } = options
  let only: UserRecord | undefined
  if (options.userEmail !== undefined) {
    only = await store.findUserByEmailKey(emailKeyOf(options.userEmail))
    if (!only) throw new UnknownUserError(`no user has the email "${options.userEmail}"`)
  }
  const summary = { users: 0, notes: 0, trash: 0, revisions: 0, attachments: 0, attachmentsLeftOut: 0 }
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
  if (options.attachmentsOut !== undefined) {
    const { written, leftOut } = await exportAttachments(store, options.attachmentsOut, {
      userId: only?._id,
      format,
      mode,
    })
    summary.attachments = written
    summary.attachmentsLeftOut = leftOut
  }
  return summary
}
