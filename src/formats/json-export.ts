// The account's full-fidelity export as a zip, in the files and shapes of the `export` command (docs/migration.md):
// notes.json, and trash.json and history.json when asked for, as MongoDB Extended JSON lines; attachments.json and
// each attachment's bytes named by its id under attachments/. The JSON reader (own-json.ts) reads it back.
import { Readable } from 'node:stream'
import type { AttachmentRecord } from '../attachment-shape.js'
import { attachmentToEjson, noteToEjson, revisionToEjson, trashedNoteToEjson } from './ejson-records.js'
import type { AccountExport } from './export-input.js'
import { type ZipEntry, zipStream } from './zip-out.js'

/** Records per entry chunk: lines are joined into one string per this many. */
const LINES_PER_CHUNK = 500

/** The lines of `records` as one stream, read as the zip takes them. */
function lines<T>(records: AsyncIterable<T>, toLine: (record: T) => string): () => Promise<Readable> {
  return async () => {
    async function* text() {
      let chunk = ''
      let count = 0
      for await (const record of records) {
        chunk += `${toLine(record)}\n`
        if (++count % LINES_PER_CHUNK === 0) {
          yield chunk
          chunk = ''
        }
      }
      if (chunk !== '') yield chunk
    }
    return Readable.from(text())
  }
}

export function jsonExport(account: AccountExport): Readable {
  // Only the records are kept for attachments.json, which comes after the bytes it describes.
  const kept: AttachmentRecord[] = []
  async function* entries(): AsyncGenerator<ZipEntry> {
    yield { path: 'notes.json', data: lines(account.notes, (note) => noteToEjson(note, 'relaxed')) }
    if (account.trash) yield { path: 'trash.json', data: lines(account.trash, (n) => trashedNoteToEjson(n, 'relaxed')) }
    if (account.history)
      yield { path: 'history.json', data: lines(account.history, (r) => revisionToEjson(r, 'relaxed')) }
    for await (const file of account.attachments) {
      kept.push(file.record)
      yield { path: `attachments/${file.record._id}`, data: () => file.open(), compress: false }
    }
    const text = kept.map((record) => `${attachmentToEjson(record, 'relaxed')}\n`).join('')
    yield { path: 'attachments/attachments.json', data: text }
  }
  return zipStream(entries())
}
