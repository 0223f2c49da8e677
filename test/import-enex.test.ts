// The Evernote reader (src/transfer/formats/enex.ts) over notes written as Evernote writes them: ENML to Markdown (formatting,
// checklists, encrypted text), resources matched to en-media by MD5 and read back byte for byte, tags, dates, keys.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { ENCRYPTED_PLACEHOLDER, MISSING_MEDIA_PLACEHOLDER } from '../src/transfer/formats/enml.js'
import type { ImportedNote } from '../src/transfer/formats/items.js'
import { ENEX_END, ENEX_PROLOG, type EnexNoteSpec, enexFile, md5 } from './support/import-fixtures/enex.js'
import { JPEG, PDF, PNG, bytesOf, readEnex } from './support/import-fixtures/enex-read.js'
import { tempDir } from './support/temp.js'

let scratch: ReturnType<typeof tempDir>
before(() => (scratch = tempDir('enex-test-')))
after(() => scratch.remove())

async function onlyNote(spec: EnexNoteSpec): Promise<ImportedNote> {
  const { notes, skipped } = await readEnex(enexFile([spec]).bytes, scratch.path)
  assert.deepEqual(skipped, [])
  assert.equal(notes.length, 1)
  return notes[0] as ImportedNote
}

describe('Evernote import: notes', () => {
  it('reads a plain note: title, paragraphs, label, not pinned, not trashed', async () => {
    const note = await onlyNote({ title: 'Groceries', body: '<div>Milk and bread</div><div>Eggs</div>' })
    assert.equal(note.title, 'Groceries')
    assert.equal(note.content, 'Milk and bread\n\nEggs')
    assert.equal(note.label, 'Groceries (My Notes.enex)')
    assert.equal(note.isPinned, false)
    assert.equal(note.trashed, false)
    assert.deepEqual(note.files, [])
    assert.match(note.key, /^enex:[0-9a-f]{64}$/)
  })

  it('turns headings, lists, links, bold, code and tables into Markdown', async () => {
    const body =
      '<h1>Plan</h1><h2>Week one</h2><ul><li>first</li><li>second</li></ul><ol><li>one</li><li>two</li></ol>' +
      '<div>See <a href="https://example.com/a">the site</a> and <b>this</b>.</div><pre><code>let x = 1</code></pre>' +
      '<table><tbody><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d|e</td></tr></tbody></table>' +
      '<div>line one<br/>line two</div><hr/>'
    const note = await onlyNote({ title: 'Formatting', body })
    assert.equal(
      note.content,
      '# Plan\n\n## Week one\n\n-   first\n-   second\n\n1.  one\n2.  two\n\n' +
        'See [the site](https://example.com/a) and **this**.\n\n```\nlet x = 1\n```\n\n' +
        '| a | b |\n| --- | --- |\n| c | d\\|e |\n\nline one  \nline two\n\n* * *',
    )
  })

  it('makes task items of en-todo and of checklists, and a placeholder of en-crypt', async () => {
    const body =
      '<div><en-todo checked="true"/>Buy milk</div><div><en-todo checked="false"/>Call Ann</div>' +
      '<div><en-todo/>Plain box</div>' +
      '<ul style="--en-todo:true;"><li style="--en-checked:true;"><div>done</div></li>' +
      '<li style="--en-checked:false;"><div>open</div></li></ul>' +
      '<div>secret: <en-crypt hint="pet" cipher="AES" length="128">RU5DMI1mnQ7fKjBk9f0a57gSc9</en-crypt></div>'
    const note = await onlyNote({ title: 'Todo', body })
    assert.equal(
      note.content,
      `- [x] Buy milk\n\n- [ ] Call Ann\n\n- [ ] Plain box\n\n- [x] done\n- [ ] open\n\nsecret: ${ENCRYPTED_PLACEHOLDER}`,
    )
  })

  it('links two images and a PDF by MD5, and open() gives their bytes', async () => {
    const spec: EnexNoteSpec = {
      title: 'Trip',
      body: '<div>Photos:</div><div>{{media:0}}</div><div>{{media:1}}</div><div>Ticket {{media:2}}</div>',
      resources: [
        { bytes: PNG, mime: 'image/png', fileName: 'beach [1].png' },
        { bytes: JPEG, mime: 'image/jpeg' },
        { bytes: PDF, mime: 'application/pdf', fileName: 'ticket.pdf' },
      ],
    }
    const note = await onlyNote(spec)
    assert.equal(
      note.content,
      'Photos:\n\n![beach \\[1\\].png](notes-import:file:0)\n\n![image.jpg](notes-import:file:1)\n\n' +
        'Ticket [ticket.pdf](notes-import:file:2)',
    )
    const expected = enexFile([spec]).expected[0]?.files
    assert.deepEqual(
      note.files.map((file) => ({ ref: file.ref, name: file.name })),
      [
        { ref: 'notes-import:file:0', name: 'beach [1].png' },
        { ref: 'notes-import:file:1', name: 'image.jpg' },
        { ref: 'notes-import:file:2', name: 'ticket.pdf' },
      ],
    )
    const read = await Promise.all(note.files.map(async (file) => bytesOf(await file.open())))
    assert.deepEqual(read, [PNG, JPEG, PDF])
    assert.deepEqual(
      read.map((bytes) => md5(bytes)),
      expected?.map((file) => file.md5),
    )
  })

  it('attaches a resource no en-media names at the end, and marks an en-media whose resource is missing', async () => {
    const note = await onlyNote({
      title: 'Orphan',
      body:
        '<div>{{media:0}}</div><div>text</div>' +
        '<div><en-media hash="0123456789abcdef0123456789abcdef" type="image/png"/></div>',
      resources: [
        { bytes: PNG, mime: 'image/png', fileName: 'shown.png' },
        { bytes: PDF, mime: 'application/pdf' },
      ],
    })
    assert.equal(
      note.content,
      `![shown.png](notes-import:file:0)\n\ntext\n\n${MISSING_MEDIA_PLACEHOLDER}\n\n[file.pdf](notes-import:file:1)`,
    )
    assert.equal(note.files.length, 2)
    assert.deepEqual(await bytesOf(await (note.files[1] as ImportedNote['files'][0]).open()), PDF)
  })

  it('reads tags and dates as ISO 8601, and character references in fields', async () => {
    const note = await onlyNote({
      title: 'Dated &#x41; <b>',
      created: '20230115T083000Z',
      updated: '20240229T235959Z',
      tags: ['work', 'Ideas & plans', 'work'],
      body: '<div>x</div>',
    })
    assert.equal(note.title, 'Dated &#x41; <b>')
    assert.equal(note.createdOn, '2023-01-15T08:30:00.000Z')
    assert.equal(note.updatedOn, '2024-02-29T23:59:59.000Z')
    assert.deepEqual(note.tags, ['work', 'Ideas & plans'])
    const raw =
      ENEX_PROLOG + '<note><title>A&#x42;&#67;</title><content><![CDATA[<en-note/>]]></content></note>' + ENEX_END
    const { notes } = await readEnex(Buffer.from(raw), scratch.path)
    assert.equal(notes[0]?.title, 'ABC')
  })

  it('gives the same key in two reads of the same file, and different keys to different notes', async () => {
    const { bytes } = enexFile([
      {
        title: 'One',
        created: '20230101T000000Z',
        body: '<div>a</div>',
        resources: [{ bytes: PNG, mime: 'image/png' }],
      },
      { title: 'Two', created: '20230101T000000Z', body: '<div>a</div>' },
      { title: '', body: '<div>untitled</div>' },
    ])
    const first = await readEnex(bytes, scratch.path)
    const second = await readEnex(bytes, scratch.path, 'other name.enex')
    assert.deepEqual(
      first.notes.map((note) => note.key),
      second.notes.map((note) => note.key),
    )
    assert.equal(new Set(first.notes.map((note) => note.key)).size, 3)
    assert.equal(first.notes[2]?.label, 'note 3 (My Notes.enex)')
  })

  it('keeps titles, tags and plain paragraphs through ENEX (property)', async () => {
    const text = fc
      .string({ minLength: 1, maxLength: 40, unit: 'grapheme' })
      .map((s) => s.replace(/[\p{Cc}\p{Cs}\uFFFE\uFFFF]/gu, '').trim())
      .filter((s) => s !== '')
    const word = fc.stringMatching(/^[A-Za-z0-9]{1,12}$/)
    const paragraph = fc.array(word, { minLength: 1, maxLength: 8 }).map((words) => words.join(' '))
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.uniqueArray(text, { maxLength: 4 }),
        fc.array(paragraph, { minLength: 1, maxLength: 4 }),
        async (title, tags, paragraphs) => {
          const body = paragraphs.map((p) => `<div>${p}</div>`).join('')
          const note = await onlyNote({ title, tags, body })
          assert.equal(note.title, title)
          assert.deepEqual(note.tags, tags)
          assert.equal(note.content, paragraphs.join('\n\n'))
        },
      ),
      { numRuns: 60 },
    )
  })
})
