// A notes-service JSON export written by the export's own code (records.ts, export-pages.ts): notes.json,
// trash.json, history.json and attachments/ with attachments.json and each file's bytes under its id, and the notes
// each record should become (docs/migration.md, "notes-service's own exports").
import { createHash } from 'node:crypto'
import { attachmentUrl } from '../../../src/attachment-shape.js'
import type { NoteRecord, StoredRevisionRecord, TrashedNoteRecord } from '../../../src/note-shape.js'
import { type ExportedAttachment, attachmentToEjson } from '../../../src/transfer/attachment-records.js'
import { type ExportFormat, render } from '../../../src/transfer/export-pages.js'
import { noteToEjson, revisionToEjson, trashedNoteToEjson } from '../../../src/transfer/records.js'
import type { ExpectedImport, FixtureFile } from './archive-files.js'
import { M4A_BYTES, PNG_BYTES } from './keep.js'

export const USER = '65a0000000000000000000aa'
const id = (n: number) => `65a1${String(n).padStart(20, '0')}`

async function text<T>(records: T[], toText: (record: T) => string, format: ExportFormat): Promise<string> {
  let out = ''
  for await (const chunk of render(
    (async function* () {
      yield records
    })(),
    toText,
    format,
    () => {},
  ))
    out += chunk
  return out
}

function attachment(n: number, name: string, type: string, bytes: Buffer): ExportedAttachment {
  const sha256 = createHash('sha256').update(bytes).digest('hex')
  return { _id: id(n), userId: USER, name, type, size: bytes.length, sha256, createdOn: '2024-01-05T00:00:00.000Z' }
}

export type ExpectedOwnNote = ExpectedImport

/** The export's files under `folder` ('' for the root) in `format`, and what each note becomes. */
export async function ownJsonExport(
  format: ExportFormat,
  folder = 'notes-service-export',
): Promise<{ files: FixtureFile[]; expected: ExpectedOwnNote[] }> {
  const at = (path: string) => (folder === '' ? path : `${folder}/${path}`)
  const photo = attachment(1, 'photo (1).png', 'image/png', PNG_BYTES)
  const voice = attachment(2, 'voice memo.m4a', 'audio/mp4', M4A_BYTES)
  const unlisted = id(3)
  const notes: NoteRecord[] = [
    {
      _id: id(10),
      title: 'Linked files',
      content: `A picture: ![photo](${attachmentUrl(photo)})\nAgain, bare: /attachments/${photo._id}\n[memo](${attachmentUrl(voice)})\n[gone](/attachments/${unlisted}/x.txt)`,
      tags: ['work', 'travel'],
      isPinned: true,
      userId: USER,
      createdOn: '2024-01-01T10:00:00.000Z',
      updatedOn: '2024-01-02T10:00:00.000Z',
    },
    {
      _id: id(11),
      title: 'Plain \u2028 line separator',
      content: 'Line one\u2029two',
      tags: [],
      isPinned: false,
      userId: USER,
      createdOn: '2024-01-03T10:00:00.000Z',
      updatedOn: '2024-01-03T10:00:00.000Z',
    },
  ]
  const trash: TrashedNoteRecord[] = [
    {
      _id: id(12),
      title: 'Deleted',
      content: 'gone',
      tags: ['old'],
      isPinned: false,
      userId: USER,
      createdOn: '2023-12-01T00:00:00.000Z',
      updatedOn: '2023-12-02T00:00:00.000Z',
      deletedOn: '2024-01-04T00:00:00.000Z',
    },
  ]
  const history: StoredRevisionRecord[] = [
    {
      _id: id(20),
      noteId: id(10),
      userId: USER,
      title: 'Old title',
      content: 'old',
      tags: [],
      isPinned: false,
      editedOn: '2024-01-01T10:00:00.000Z',
      replacedOn: '2024-01-02T10:00:00.000Z',
    },
  ]
  const files: FixtureFile[] = [
    { path: at('notes.json'), bytes: await text(notes, (n) => noteToEjson(n, 'relaxed'), format) },
    { path: at('trash.json'), bytes: await text(trash, (n) => trashedNoteToEjson(n, 'relaxed'), format) },
    { path: at('history.json'), bytes: await text(history, (r) => revisionToEjson(r, 'relaxed'), format) },
    {
      path: at('attachments/attachments.json'),
      bytes: await text([photo, voice], (a) => attachmentToEjson(a, 'relaxed'), format),
    },
    { path: at(`attachments/${photo._id}`), bytes: PNG_BYTES },
    { path: at(`attachments/${voice._id}`), bytes: M4A_BYTES },
  ]
  const photoUrl = `/attachments/ID/${encodeURIComponent(photo.name)}`
  const expected: ExpectedOwnNote[] = [
    {
      key: `notes-service:${id(10)}`,
      title: 'Linked files',
      content: `A picture: ![photo](${photoUrl})\nAgain, bare: ${photoUrl}\n[memo](/attachments/ID/voice%20memo.m4a)\n[gone](/attachments/${unlisted}/x.txt)`,
      tags: ['work', 'travel'],
      isPinned: true,
      trashed: false,
      createdOn: '2024-01-01T10:00:00.000Z',
      updatedOn: '2024-01-02T10:00:00.000Z',
      files: [
        { name: photo.name, bytes: PNG_BYTES },
        { name: voice.name, bytes: M4A_BYTES },
      ],
    },
    {
      key: `notes-service:${id(11)}`,
      title: 'Plain \u2028 line separator',
      content: 'Line one\u2029two',
      tags: [],
      isPinned: false,
      trashed: false,
      createdOn: '2024-01-03T10:00:00.000Z',
      updatedOn: '2024-01-03T10:00:00.000Z',
      files: [],
    },
    {
      key: `notes-service:${id(12)}`,
      title: 'Deleted',
      content: 'gone',
      tags: ['old'],
      isPinned: false,
      trashed: true,
      createdOn: '2023-12-01T00:00:00.000Z',
      updatedOn: '2023-12-02T00:00:00.000Z',
      files: [],
    },
  ]
  return { files, expected }
}
