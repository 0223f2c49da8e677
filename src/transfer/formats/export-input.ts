// What an account's export is written from, whatever its format: the account's records as the store pages them out,
// and each attachment with a way to read its bytes. The formats (markdown-export.ts, json-export.ts) only write.
import type { Readable } from 'node:stream'
import type { AttachmentRecord } from '../../attachment-shape.js'
import type { NoteRecord, StoredRevisionRecord, TrashedNoteRecord } from '../../note-shape.js'

export interface ExportedFile {
  record: AttachmentRecord
  open(): Promise<Readable>
}

export interface AccountExport {
  exportedOn: string
  notes: AsyncIterable<NoteRecord>
  /** Given only when the trash is asked for. */
  trash?: AsyncIterable<TrashedNoteRecord> | undefined
  /** Given only when the history is asked for. */
  history?: AsyncIterable<StoredRevisionRecord> | undefined
  attachments: AsyncIterable<ExportedFile>
}
