// Our records as MongoDB Extended JSON, one document each, as `export` writes them to files and the account export
// writes them into its zip (docs/migration.md): `_id` an ObjectId, dates as dates, other ids as strings.
import { EJSON, ObjectId } from 'bson'
import type { AttachmentRecord } from '../../attachment-shape.js'
import type { NoteRecord, StoredRevisionRecord, TrashedNoteRecord } from '../../note-shape.js'

export type EjsonMode = 'relaxed' | 'canonical'

/** The record with its _id as an ObjectId and `dates` as dates, each key where it was; other ids stay strings. */
export function recordToEjson(
  record: { _id: string } & Record<string, unknown>,
  dates: readonly string[],
  mode: EjsonMode,
): string {
  const doc: Record<string, unknown> = { ...record, _id: ObjectId.createFromHexString(record._id) }
  for (const field of dates) doc[field] = new Date(doc[field] as string)
  return EJSON.stringify(doc, { relaxed: mode === 'relaxed' })
}

/** A note as the original's collection holds it (userId is a string there), plus updatedOn. */
export const noteToEjson = (note: NoteRecord, mode: EjsonMode): string =>
  recordToEjson(note, ['createdOn', 'updatedOn'], mode)

/** A trashed note: a note's document and deletedOn. */
export const trashedNoteToEjson = (note: TrashedNoteRecord, mode: EjsonMode): string =>
  recordToEjson(note, ['createdOn', 'updatedOn', 'deletedOn'], mode)

/** A revision, noteId and userId as strings like a note's userId. */
export const revisionToEjson = (revision: StoredRevisionRecord, mode: EjsonMode): string =>
  recordToEjson(revision, ['editedOn', 'replacedOn'], mode)

/** An attachment as the export writes it and the import reads it: the record without its blob key. */
export type ExportedAttachment = Omit<AttachmentRecord, 'blobKey'>

/** The record as attachments.json holds it: `_id`, `userId`, `name`, `type`, `size`, `sha256`, `createdOn`. */
export function attachmentToEjson(record: ExportedAttachment, mode: EjsonMode): string {
  const { _id, userId, name, type, size, sha256, createdOn } = record
  return recordToEjson({ _id, userId, name, type, size, sha256, createdOn }, ['createdOn'], mode)
}
