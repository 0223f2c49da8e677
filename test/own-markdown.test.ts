// The Markdown export read back: a round trip of arbitrary notes and attachments through the zip (a property), the
// manifest found at the root or in one top folder, and a newer export's or a broken one's refusal.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { attachmentUrl } from '../src/attachment-shape.js'
import { openFolder } from '../src/transfer/formats/archive.js'
import { MalformedImportError } from '../src/transfer/formats/items.js'
import { ownMarkdownFormat } from '../src/transfer/formats/own-markdown.js'
import type { NoteRecord, TrashedNoteRecord } from '../src/note-shape.js'
import {
  type AttachmentFixture,
  attachmentFixture,
  attachmentSources,
  exportedZip,
  listed,
  noteRecord,
  readAll,
  streamBytes,
} from './support/markdown-export.js'
import { tempDir } from './support/temp.js'

let dir: ReturnType<typeof tempDir>
before(() => {
  dir = tempDir('own-markdown-')
})
after(() => dir.remove())

const hexId = fc.stringMatching(/^[0-9a-f]{24}$/)
const anyText = (maxLength: number) =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
    fc.constantFrom('', 'a/b\\c', 'CON', '..', ' x. ', '---', 'yes', '#tag', 'a: b', '- x', '"q"', '\r\n'),
  )
const isoTime = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString())

const attachmentsArb = fc
  .uniqueArray(
    fc.record({
      id: hexId,
      name: anyText(40).filter((name) => name !== ''),
      bytes: fc.uint8Array({ maxLength: 3000 }),
    }),
    { selector: (attachment) => attachment.id, maxLength: 4 },
  )
  .map((list) => list.map(({ id, name, bytes }) => attachmentFixture(id, name, Buffer.from(bytes))))

/** Text with links to some of `attachments`, as the service writes them. */
const contentArb = (attachments: AttachmentFixture[]) => {
  const fragments: fc.Arbitrary<string>[] = [anyText(60)]
  if (attachments.length > 0) {
    const url = fc.constantFrom(...attachments).map(({ record }) => attachmentUrl(record))
    fragments.push(
      url,
      url.map((link) => `![picture](${link})`),
      url.map((link) => `<img src="${link}">`),
    )
  }
  // Fragments are joined by spaces: a link is where the service writes one, after a space or at a line's start.
  return fc.array(fc.oneof(...fragments), { maxLength: 6 }).map((parts) => parts.join(' '))
}

const notesArb = (attachments: AttachmentFixture[]) =>
  fc.uniqueArray(
    fc.record({
      _id: hexId,
      title: anyText(80),
      content: contentArb(attachments),
      tags: fc.array(anyText(20), { maxLength: 4 }),
      isPinned: fc.boolean(),
      createdOn: isoTime,
      updatedOn: isoTime,
      deletedOn: fc.option(isoTime, { nil: undefined }),
    }),
    { selector: (note) => note._id, maxLength: 8 },
  )

describe('markdown export read back', () => {
  it('gives back every note and attachment as exported (property)', { timeout: 600_000 }, async () => {
    let run = 0
    const scenario = attachmentsArb.chain((attachments) =>
      notesArb(attachments).map((notes) => ({ attachments, notes })),
    )
    await fc.assert(
      fc.asyncProperty(scenario, async ({ attachments, notes }) => {
        const live: NoteRecord[] = []
        const trashed: TrashedNoteRecord[] = []
        for (const { deletedOn, ...fields } of notes) {
          const note = noteRecord(fields)
          if (deletedOn === undefined) live.push(note)
          else trashed.push({ ...note, deletedOn })
        }
        const archive = await exportedZip(
          {
            exportedOn: '2024-01-01T00:00:00.000Z',
            notes: listed(live),
            trash: listed(trashed),
            attachments: attachmentSources(attachments),
          },
          dir.path,
          `round-${run++}.zip`,
        )
        assert.ok(await ownMarkdownFormat.probe(archive))
        const { notes: read, skipped } = await readAll(ownMarkdownFormat, archive)
        assert.deepEqual(skipped, [])
        assert.equal(read.length, notes.length)
        const byId = new Map(attachments.map((attachment) => [attachment.record._id, attachment]))
        for (const [index, original] of [...live, ...trashed].entries()) {
          const item = read[index]
          assert.ok(item)
          assert.equal(item.key, `notes-service:${original._id}`)
          assert.equal(item.title, original.title)
          assert.deepEqual(item.tags, original.tags)
          assert.equal(item.isPinned, original.isPinned)
          assert.equal(item.trashed, index >= live.length)
          assert.equal(item.createdOn, original.createdOn)
          assert.equal(item.updatedOn, original.updatedOn)
          let content = item.content
          for (const file of item.files) {
            const attachment = byId.get(file.ref.split('/')[2] ?? '')
            assert.ok(attachment, file.ref)
            assert.equal(file.name, attachment.record.name)
            assert.deepEqual(await streamBytes(await file.open()), attachment.bytes)
            content = content.split(file.ref).join(attachmentUrl(attachment.record))
          }
          assert.equal(content, original.content)
        }
      }),
      { numRuns: 60 },
    )
  })
})

function writeTree(root: string, files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true })
    writeFileSync(join(root, path), text)
  }
}

const manifest = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({
    format: 'notes-service-markdown',
    version: 1,
    exportedOn: '2024-01-01T00:00:00.000Z',
    notes: [{ id: 'n1', path: 'notes/One.md' }],
    trash: [],
    history: [],
    attachments: [{ id: 'a1', name: 'a b.png', path: 'attachments/a1/a b.png' }],
    ...fields,
  })
const one = '---\nid: n1\ntitle: One\n---\n![x](../attachments/a1/a%20b.png) [y](../attachments/a1/renamed.png) '

describe('markdown export read back: its shape', () => {
  it('finds the manifest at the root or in a single top folder, and nowhere else', async () => {
    const cases: [string, Record<string, string>, boolean][] = [
      ['root', { 'manifest.json': manifest(), 'notes/One.md': one }, true],
      ['top', { 'export/manifest.json': manifest(), 'export/notes/One.md': one }, true],
      ['deeper', { 'a/b/manifest.json': manifest(), 'a/b/notes/One.md': one }, false],
      ['two tops', { 'a/manifest.json': manifest(), 'b/notes/One.md': one }, false],
      ['other format', { 'manifest.json': manifest({ format: 'something' }) }, false],
      ['not json', { 'manifest.json': '{' }, false],
    ]
    for (const [name, files, expected] of cases) {
      writeTree(join(dir.path, name), files)
      assert.equal(await ownMarkdownFormat.probe(await openFolder(join(dir.path, name))), expected, name)
    }
    const { notes } = await readAll(ownMarkdownFormat, await openFolder(join(dir.path, 'top')))
    assert.equal(notes[0]?.title, 'One')
  })

  it('links files by the exact text of each link, an edited name segment included', async () => {
    writeTree(join(dir.path, 'links'), {
      'manifest.json': manifest(),
      'notes/One.md': one,
      'attachments/a1/a b.png': 'P',
    })
    const { notes } = await readAll(ownMarkdownFormat, await openFolder(join(dir.path, 'links')))
    assert.deepEqual(
      notes[0]?.files.map((file) => [file.ref, file.name]),
      [
        ['../attachments/a1/a%20b.png', 'a b.png'],
        ['../attachments/a1/renamed.png', 'a b.png'],
      ],
    )
  })

  it('refuses an export of a newer version, saying so', async () => {
    writeTree(join(dir.path, 'newer'), { 'manifest.json': manifest({ version: 2 }), 'notes/One.md': one })
    await assert.rejects(
      readAll(ownMarkdownFormat, await openFolder(join(dir.path, 'newer'))),
      (err: Error) => err instanceof MalformedImportError && /newer notes-service/.test(err.message),
    )
  })

  it('skips a listed note that is missing, one without front matter, and one with a date that is not one', async () => {
    const notesList = [
      { id: 'n1', path: 'notes/One.md' },
      { id: 'n2', path: 'notes/Gone.md' },
      { id: 'n3', path: 'notes/Plain.md' },
      { id: 'n4', path: 'notes/Date.md' },
    ]
    writeTree(join(dir.path, 'skips'), {
      'manifest.json': manifest({ notes: notesList }),
      'notes/One.md': one,
      'notes/Plain.md': 'just text',
      'notes/Date.md': '---\nid: n4\ncreated: tomorrow\n---\n',
    })
    const { notes, skipped } = await readAll(ownMarkdownFormat, await openFolder(join(dir.path, 'skips')))
    assert.deepEqual(
      notes.map((note) => note.key),
      ['notes-service:n1'],
    )
    assert.deepEqual(
      skipped.map((item) => item.label),
      ['notes/Gone.md', 'notes/Plain.md', 'notes/Date.md'],
    )
    assert.match(skipped[2]?.reason ?? '', /created time is not a date: tomorrow/)
  })
})
