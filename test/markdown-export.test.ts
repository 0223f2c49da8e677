// The Markdown export: its layout, file names safe on every system and unique, links made relative, the manifest,
// and a client that reads slowly holding the export back instead of making it buffer.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { randomBytes } from 'node:crypto'
import { MAX_NAME_BYTES, UniqueNames, safeFileName } from '../src/transfer/formats/file-names.js'
import { parseFrontMatter, splitFrontMatter } from '../src/transfer/formats/front-matter.js'
import {
  type MarkdownManifest,
  markdownExport,
  relativeAttachmentLinks,
} from '../src/transfer/formats/markdown-export.js'
import type { NoteRecord } from '../src/note-shape.js'
import {
  attachmentFixture,
  attachmentSources,
  entryText,
  exportedZip,
  listed,
  noteRecord,
  streamBytes,
} from './support/markdown-export.js'
import { tempDir } from './support/temp.js'

let dir: ReturnType<typeof tempDir>
before(() => {
  dir = tempDir('markdown-export-')
})
after(() => dir.remove())

const properties = (text: string) => {
  const parsed = parseFrontMatter(splitFrontMatter(text).yaml ?? '')
  assert.ok('properties' in parsed)
  return parsed.properties
}

describe('markdown export: file names', () => {
  it('replaces characters Windows, macOS or Linux refuse, and control characters', () => {
    const names = new UniqueNames()
    assert.equal(names.name('a/b\\c:d*e?f"g<h>i|j', '.md'), 'a_b_c_d_e_f_g_h_i_j.md')
    assert.equal(names.name('tab\there\u0000\u202e', '.md'), 'tab_here__.md')
  })

  it('drops trailing dots and spaces, hides no file behind a leading dot, and names an empty title untitled', () => {
    const names = new UniqueNames()
    assert.equal(names.name('Ends with dots... ', '.md'), 'Ends with dots.md')
    assert.equal(names.name('.hidden', '.md'), '_hidden.md')
    assert.equal(names.name('', '.md'), 'untitled.md')
    assert.equal(names.name('  ', '.md'), 'untitled (2).md')
    assert.equal(names.name('...', '.md'), '___.md')
  })

  it('prefixes names Windows reserves, whatever their case or extension', () => {
    const names = new UniqueNames()
    for (const title of ['CON', 'prn', 'Aux', 'nul', 'COM1', 'lpt9', 'con.txt', 'COM¹'])
      assert.equal(names.name(title, '.md'), `_${title}.md`)
    assert.equal(names.name('CONSOLE', '.md'), 'CONSOLE.md')
  })

  it('keeps names within the byte limit without splitting a character, suffix included', () => {
    const names = new UniqueNames()
    const long = '日本語😀'.repeat(40)
    const first = names.name(long, '.md')
    const second = names.name(long, '.md')
    for (const name of [first, second]) {
      assert.ok(Buffer.byteLength(name) <= MAX_NAME_BYTES, name)
      assert.ok(name.isWellFormed())
    }
    assert.match(second, / \(2\)\.md$/)
    assert.ok(first.startsWith(second.slice(0, -7)))
  })

  it('makes names unique as case-insensitive file systems compare them', () => {
    const names = new UniqueNames()
    const made = ['Plan', 'plan', 'PLAN', 'Plan (2)', 'e\u0301', 'é'].map((title) => names.name(title, '.md'))
    assert.deepEqual(made, ['Plan.md', 'plan (2).md', 'PLAN (3).md', 'Plan (2) (2).md', 'é.md', 'é (2).md'])
  })

  it('keeps an attachment name extension when it shortens a long name', () => {
    assert.equal(safeFileName('photo:1.jpeg'), 'photo_1.jpeg')
    const long = safeFileName(`${'x'.repeat(300)}.pdf`)
    assert.ok(long.endsWith('.pdf') && Buffer.byteLength(long) <= MAX_NAME_BYTES)
    assert.equal(safeFileName('CON.png'), '_CON.png')
    assert.equal(safeFileName(''), 'file')
  })
})

describe('markdown export: links', () => {
  it('makes attachment URLs relative, and leaves other URLs alone', () => {
    const content = [
      '![p](/attachments/abc/p%20q.png) [d](</attachments/def/d.pdf>)',
      '<img src="/attachments/abc/p.png"> https://example.com/attachments/abc/x.png',
      '/attachments/abc/start.png and a/attachments/abc/no.png',
    ].join('\n')
    assert.equal(
      relativeAttachmentLinks(content, 1),
      [
        '![p](../attachments/abc/p%20q.png) [d](<../attachments/def/d.pdf>)',
        '<img src="../attachments/abc/p.png"> https://example.com/attachments/abc/x.png',
        '../attachments/abc/start.png and a/attachments/abc/no.png',
      ].join('\n'),
    )
    assert.equal(relativeAttachmentLinks('(/attachments/a/b)', 2), '(../../attachments/a/b)')
  })
})

describe('markdown export: layout and manifest', () => {
  it('writes notes, trash, history and attachments as documented, manifest.json last', async () => {
    const picture = attachmentFixture('a1', 'pic: 1.png', randomBytes(3000), 'image/png')
    const doc = attachmentFixture('a2', 'notes.txt', Buffer.from('hello'), 'text/plain')
    const notes: NoteRecord[] = [
      noteRecord({
        _id: 'n1',
        title: 'Plan',
        tags: ['work', 'q1'],
        isPinned: true,
        content: '![p](/attachments/a1/pic%3A%201.png)\n',
      }),
      noteRecord({ _id: 'n2', title: 'plan', content: 'second' }),
      noteRecord({ _id: 'n3', title: 'CON', content: '[d](/attachments/a2/notes.txt)' }),
      noteRecord({ _id: 'n4', title: '', content: 'no title' }),
    ]
    const trashed = {
      ...noteRecord({ _id: 'n5', title: 'Old/new', content: 'gone' }),
      deletedOn: '2024-03-01T00:00:00.000Z',
    }
    const revision = {
      _id: 'r1',
      noteId: 'n1',
      userId: 'u1',
      title: 'Plan',
      content: 'before ![p](/attachments/a1/pic%3A%201.png)',
      tags: [],
      isPinned: false,
      editedOn: '2024-01-05T06:07:08.000Z',
      replacedOn: '2024-01-06T00:00:00.000Z',
    }
    const archive = await exportedZip(
      {
        exportedOn: '2024-04-01T00:00:00.000Z',
        notes: listed(notes),
        trash: listed([trashed]),
        history: listed([revision]),
        attachments: attachmentSources([picture, doc]),
      },
      dir.path,
      'layout.zip',
    )
    try {
      assert.deepEqual(
        archive.entries.map((entry) => entry.path),
        [
          'notes/Plan.md',
          'notes/plan (2).md',
          'notes/_CON.md',
          'notes/untitled.md',
          'trash/Old_new.md',
          'history/n1/2024-01-05T06-07-08.000Z.md',
          'attachments/a1/pic_ 1.png',
          'attachments/a2/notes.txt',
          'manifest.json',
        ],
      )
      const plan = await entryText(archive, 'notes/Plan.md')
      assert.equal(splitFrontMatter(plan).body, '![p](../attachments/a1/pic%3A%201.png)\n')
      assert.deepEqual(properties(plan), {
        id: 'n1',
        title: 'Plan',
        tags: ['work', 'q1'],
        pinned: true,
        created: '2024-01-02T03:04:05.678Z',
        updated: '2024-02-03T04:05:06.789Z',
      })
      const old = await entryText(archive, 'trash/Old_new.md')
      assert.equal(properties(old).deleted, '2024-03-01T00:00:00.000Z')
      assert.equal(properties(old).title, 'Old/new')
      const past = await entryText(archive, 'history/n1/2024-01-05T06-07-08.000Z.md')
      assert.equal(splitFrontMatter(past).body, 'before ![p](../../attachments/a1/pic%3A%201.png)')
      assert.deepEqual(properties(past), {
        id: 'r1',
        noteId: 'n1',
        title: 'Plan',
        tags: [],
        pinned: false,
        edited: '2024-01-05T06:07:08.000Z',
        replaced: '2024-01-06T00:00:00.000Z',
      })
      assert.deepEqual(Buffer.from(await entryText(archive, 'attachments/a2/notes.txt')), doc.bytes)
      const manifest = JSON.parse(await entryText(archive, 'manifest.json')) as MarkdownManifest
      assert.deepEqual(manifest, {
        format: 'notes-service-markdown',
        version: 1,
        exportedOn: '2024-04-01T00:00:00.000Z',
        notes: [
          { id: 'n1', path: 'notes/Plan.md' },
          { id: 'n2', path: 'notes/plan (2).md' },
          { id: 'n3', path: 'notes/_CON.md' },
          { id: 'n4', path: 'notes/untitled.md' },
        ],
        trash: [{ id: 'n5', path: 'trash/Old_new.md' }],
        history: [{ id: 'r1', noteId: 'n1', path: 'history/n1/2024-01-05T06-07-08.000Z.md' }],
        attachments: [picture, doc].map(({ record }) => ({
          id: record._id,
          name: record.name,
          type: record.type,
          size: record.size,
          sha256: record.sha256,
          createdOn: record.createdOn,
          path: `attachments/${record._id}/${record._id === 'a1' ? 'pic_ 1.png' : 'notes.txt'}`,
        })),
      })
    } finally {
      await archive.close()
    }
  })

  it('ends the stream with the error of a failing source', async () => {
    async function* failing(): AsyncIterable<NoteRecord> {
      yield noteRecord({ _id: 'n1', title: 'one' })
      throw new Error('the store went away')
    }
    const output = markdownExport({ exportedOn: '2024-01-01T00:00:00.000Z', notes: failing(), attachments: listed([]) })
    await assert.rejects(streamBytes(output), /the store went away/)
  })
})

describe('markdown export: backpressure', () => {
  it('takes notes only as fast as the client reads the zip', { timeout: 120_000 }, async () => {
    const total = 200
    let taken = 0
    async function* notes(): AsyncIterable<NoteRecord> {
      for (let i = 0; i < total; i++) {
        taken++
        // Random base64 compresses little: each note puts about 45 kB into the zip.
        yield noteRecord({ _id: `n${i}`, title: `note ${i}`, content: randomBytes(45_000).toString('base64') })
      }
    }
    const output = markdownExport({ exportedOn: '2024-01-01T00:00:00.000Z', notes: notes(), attachments: listed([]) })
    // Nobody reads for a while: the export must stop after what the streams' buffers hold.
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    assert.ok(taken < 20, `${taken} notes taken while nothing was read`)
    const zip = await streamBytes(output)
    assert.equal(taken, total)
    assert.ok(zip.length > total * 40_000, `${zip.length} bytes`)
  })

  it('stops taking notes when the client goes away', { timeout: 120_000 }, async () => {
    let taken = 0
    async function* notes(): AsyncIterable<NoteRecord> {
      for (let i = 0; i < 1000; i++) {
        taken++
        yield noteRecord({ _id: `n${i}`, title: `note ${i}`, content: randomBytes(45_000).toString('base64') })
      }
    }
    const output = markdownExport({ exportedOn: '2024-01-01T00:00:00.000Z', notes: notes(), attachments: listed([]) })
    for await (const chunk of output) if (chunk) break
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    assert.ok(taken < 20, `${taken} notes taken after the client left`)
  })
})
