// The import and export endpoints as a client uses them: a file posted as a one-part form, its streamed answer read
// line by line, and what the account then holds, read back through the public API with every linked file's bytes.
import assert from 'node:assert/strict'
import type { ListedAttachmentAnswer } from '../../src/attachment-shape.js'
import type { NoteRecord, TrashedNoteRecord } from '../../src/note-shape.js'
import type { ImportSummary } from '../../src/import-shape.js'
import type { Harness } from './harness.js'
import { multipartBody } from './multipart.js'

export interface ImportReply {
  status: number
  /** Every line of a 200's body, parsed. */
  lines: Record<string, unknown>[]
  summary?: ImportSummary
  /** A 400's message, or a streamed error line's. */
  error?: string
}

export async function importFile(
  h: Harness,
  token: string,
  file: { filename: string; bytes: Buffer | string },
  query = '',
): Promise<ImportReply> {
  const { body, contentType } = multipartBody({ filename: file.filename, bytes: file.bytes })
  const reply = await h.client.request('POST', `/import-notes${query}`, {
    token,
    raw: body,
    headers: { 'content-type': contentType },
  })
  if (reply.status !== 200) {
    const message = (reply.json as { message?: string } | undefined)?.message
    return { status: reply.status, lines: [], ...(message !== undefined && { error: message }) }
  }
  assert.match(String(reply.headers['content-type']), /^application\/x-ndjson/)
  assert.ok(reply.text.endsWith('\n'), 'the answer ends with a whole line')
  const lines = reply.text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
  const last = lines.at(-1)!
  for (const line of lines.slice(0, -1)) assert.deepEqual(Object.keys(line), ['progress'])
  if ('summary' in last) return { status: 200, lines, summary: last.summary as ImportSummary }
  assert.equal(last.error, true, `the last line is a summary or an error: ${JSON.stringify(last)}`)
  return { status: 200, lines, error: last.message as string }
}

/** A note of the account, with each file its content links to, read back. */
export interface HeldNote {
  note: NoteRecord
  trashed: boolean
  files: { name: string; bytes: Buffer }[]
}

/** Every note of the account, live and trashed, with the files that link to it (GET /get-attachments) read back. */
export async function heldNotes(h: Harness, token: string): Promise<HeldNote[]> {
  const live = await h.client.request('GET', '/get-all-notes', { token })
  assert.equal(live.status, 200, live.text)
  const trash = await h.client.request('GET', '/get-trash', { token })
  assert.equal(trash.status, 200, trash.text)
  const listed = await h.client.request('GET', '/get-attachments', { token })
  assert.equal(listed.status, 200, listed.text)
  const attachments = (listed.json as { attachments: ListedAttachmentAnswer[] }).attachments
  const notes = [
    ...(live.json as { notes: NoteRecord[] }).notes.map((note) => ({ note, trashed: false })),
    ...(trash.json as { notes: TrashedNoteRecord[] }).notes.map((note) => ({ note, trashed: true })),
  ]
  const held: HeldNote[] = []
  for (const { note, trashed } of notes) {
    const files: HeldNote['files'] = []
    for (const file of attachments.filter((a) => a.notes.includes(note._id))) {
      assert.ok(note.content.includes(file.url), `"${note.title}" links ${file.url}`)
      const got = await h.client.request('GET', file.url, { token })
      assert.equal(got.status, 200, `${file.url}: ${got.text}`)
      files.push({ name: file.name, bytes: got.bytes })
    }
    held.push({ note, trashed, files })
  }
  return held
}

/** What a fixture says each note becomes, in the terms the API shows. */
export interface ExpectedHeld {
  title: string
  tags: string[]
  isPinned: boolean
  trashed?: boolean
  createdOn?: string | undefined
  updatedOn?: string | undefined
  files: { bytes: Buffer }[]
}

/** Each expected note is held once, with its tags, pin, place, dates and files' bytes. */
export function assertHolds(held: HeldNote[], expected: ExpectedHeld[]): void {
  assert.equal(held.length, expected.length, `held: ${held.map((h) => h.note.title).join(' | ')}`)
  for (const want of expected) {
    const found = held.filter((h) => h.note.title === want.title)
    assert.equal(found.length, 1, `one note titled "${want.title}"`)
    const { note, trashed, files } = found[0]!
    assert.deepEqual([...note.tags].sort(), [...want.tags].sort(), `tags of "${want.title}"`)
    assert.equal(note.isPinned, want.isPinned, `pin of "${want.title}"`)
    assert.equal(trashed, want.trashed ?? false, `place of "${want.title}"`)
    if (want.createdOn) assert.equal(note.createdOn, want.createdOn, `createdOn of "${want.title}"`)
    if (want.updatedOn) assert.equal(note.updatedOn, want.updatedOn, `updatedOn of "${want.title}"`)
    const hex = (list: { bytes: Buffer }[]) => list.map((f) => f.bytes.toString('hex')).sort()
    assert.deepEqual(hex(files), hex(want.files), `files of "${want.title}"`)
  }
}
