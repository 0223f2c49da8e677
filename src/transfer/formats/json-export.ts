// The account's full-fidelity export as a zip, in the files and shapes of the `export` command (docs/migration.md):
// notes.json, and trash.json and history.json when asked for, as MongoDB Extended JSON lines; attachments.json and
// each attachment's bytes named by its id under attachments/. The JSON reader (own-json.ts) reads it back.
import { Readable } from 'node:stream'
import type { AttachmentRecord } from '../../attachment-shape.js'
import { attachmentToEjson, noteToEjson, revisionToEjson, trashedNoteToEjson } from './ejson-records.js'
import type { AccountExport } from './export-input.js'
import { zipOut, zipTime } from './zip-out.js'

/** Records per chunk of an entry: lines are joined into one string per this many. */
const LINES_PER_CHUNK = 500

/** The lines of `records` as one stream, read as the zip takes them. */
function lines<T>(records: AsyncIterable<T>, toLine: (record: T) => string): Readable {
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

export function jsonExport(account: AccountExport): Readable {
  const mtime = zipTime(account.exportedOn)
  const compressed = { mtime, compress: true }
  return zipOut(async (zip) => {
    await zip.add(
      lines(account.notes, (note) => noteToEjson(note, 'relaxed')),
      'notes.json',
      compressed,
    )
    if (account.trash)
      await zip.add(
        lines(account.trash, (note) => trashedNoteToEjson(note, 'relaxed')),
        'trash.json',
        compressed,
      )
    if (account.history)
      await zip.add(
        lines(account.history, (revision) => revisionToEjson(revision, 'relaxed')),
        'history.json',
        compressed,
      )
    // Only the records are kept for attachments.json, which comes after the bytes it describes.
    const kept: AttachmentRecord[] = []
    for await (const file of account.attachments) {
      await zip.add(await file.open(), `attachments/${file.record._id}`, {
        mtime,
        compress: false,
        size: file.record.size,
      })
      kept.push(file.record)
    }
    const text = kept.map((record) => `${attachmentToEjson(record, 'relaxed')}\n`).join('')
    await zip.addBytes(text, 'attachments/attachments.json', mtime)
  })
}
