// The Markdown import: an Obsidian vault, a Joplin export and plain files (test/support/import-fixtures/markdown.ts)
// read from a folder and a zip, one file alone, and what it skips: an oversized file, a bad date, an alias bomb.
import assert from 'node:assert/strict'
import { createWriteStream } from 'node:fs'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { after, before, describe, it } from 'node:test'
import yazl from 'yazl'
import { type Archive, openFolder, openZip } from '../src/transfer/formats/archive.js'
import { MAX_SOURCE_NOTE_BYTES } from '../src/transfer/formats/items.js'
import { markdownFormat } from '../src/transfer/formats/markdown-vault.js'
import {
  type MarkdownFixture,
  joplinExport,
  obsidianVault,
  plainFiles,
  withFileNames,
  writeFixture,
} from './support/import-fixtures/markdown.js'
import { readAll, streamBytes } from './support/markdown-export.js'
import { tempDir } from './support/temp.js'

let dir: ReturnType<typeof tempDir>
before(() => {
  dir = tempDir('import-markdown-')
})
after(() => dir.remove())

async function zipOf(files: Record<string, string | Buffer>, name: string): Promise<Archive> {
  const zip = new yazl.ZipFile()
  for (const [path, data] of Object.entries(files)) zip.addBuffer(Buffer.from(data), path)
  zip.end()
  const file = join(dir.path, name)
  await pipeline(zip.outputStream, createWriteStream(file))
  return openZip(file)
}

/** One file as the import gives it: an archive of one entry, named by the file's name. */
function singleFile(name: string, text: string): Archive {
  const bytes = Buffer.from(text)
  return {
    entries: [{ path: name, size: bytes.length, open: async () => Readable.from([bytes]) }],
    close: async () => {},
  }
}

async function assertReads(archive: Archive, fixture: MarkdownFixture) {
  assert.ok(await markdownFormat.probe(archive))
  const { notes, skipped } = await readAll(markdownFormat, archive)
  assert.deepEqual(
    await Promise.all(
      notes.map(async (note) => ({
        key: note.key,
        title: note.title,
        content: withFileNames(note),
        tags: note.tags,
        isPinned: note.isPinned,
        ...(note.createdOn === undefined ? {} : { createdOn: note.createdOn }),
        ...(note.updatedOn === undefined ? {} : { updatedOn: note.updatedOn }),
        files: await Promise.all(
          note.files.map(async (file) => ({ name: file.name, bytes: await streamBytes(await file.open()) })),
        ),
      })),
    ),
    fixture.notes,
  )
  for (const note of notes) {
    assert.equal(note.label, note.key.slice('markdown:'.length))
    assert.equal(note.trashed, false)
    assert.equal(new Set(note.files.map((file) => file.ref)).size, note.files.length)
  }
  assert.deepEqual(
    skipped.map((item) => item.label),
    fixture.skipped.map((item) => item.label),
  )
  for (const [index, item] of skipped.entries()) assert.match(item.reason, fixture.skipped[index]?.reason ?? /./)
}

describe('markdown import: sources', () => {
  for (const [name, fixture] of [
    ['an Obsidian vault', obsidianVault],
    ['a Joplin Markdown + Front Matter export', joplinExport],
    ['plain Markdown files', plainFiles],
  ] as const) {
    it(`reads ${name} from a folder`, async () => {
      const { files } = fixture()
      await assertReads(await openFolder(writeFixture(join(dir.path, name), files)), fixture())
    })
    it(`reads ${name} from a zip`, async () => {
      await assertReads(await zipOf(fixture().files, `${name}.zip`), fixture())
    })
  }

  it('reads one .md file alone, titled by its name', async () => {
    const { notes } = await readAll(markdownFormat, singleFile('Shopping list.md', '- milk #groceries\n'))
    assert.deepEqual(
      notes.map((note) => [note.key, note.title, note.content, note.tags]),
      [['markdown:Shopping list.md', 'Shopping list', '- milk #groceries\n', ['groceries']]],
    )
  })

  it('gives the same keys on every read of one source', async () => {
    const folder = writeFixture(join(dir.path, 'stable'), obsidianVault().files)
    const first = await readAll(markdownFormat, await openFolder(folder))
    const second = await readAll(markdownFormat, await openFolder(folder))
    assert.deepEqual(
      first.notes.map((note) => note.key),
      second.notes.map((note) => note.key),
    )
    assert.equal(first.notes.length, 2)
  })

  it('probes true for any visible .md file, and false without one', async () => {
    assert.ok(await markdownFormat.probe(singleFile('a.md', 'x')))
    assert.equal(await markdownFormat.probe(singleFile('a.txt', 'x')), false)
    const hidden = writeFixture(join(dir.path, 'hidden'), {
      '.obsidian/a.md': 'x',
      'b.json': '{}',
      '_resources/c.md': 'x',
    })
    assert.equal(await markdownFormat.probe(await openFolder(hidden)), false)
  })
})

describe('markdown import: what it skips', () => {
  it('skips a file larger than a note may come from, without reading it', async () => {
    let opened = false
    const archive: Archive = {
      entries: [
        {
          path: 'huge.md',
          size: MAX_SOURCE_NOTE_BYTES + 1,
          open: async () => {
            opened = true
            throw new Error('read')
          },
        },
      ],
      close: async () => {},
    }
    const { notes, skipped } = await readAll(markdownFormat, archive)
    assert.equal(notes.length, 0)
    assert.deepEqual(
      skipped.map((item) => item.label),
      ['huge.md'],
    )
    assert.match(skipped[0]?.reason ?? '', /too large/)
    assert.equal(opened, false)
  })

  it('skips front matter whose aliases would expand it (a YAML alias bomb)', async () => {
    const lines = ['---', 'a: &a ["x","x","x","x","x","x","x","x","x"]']
    for (let level = 1; level <= 9; level++) {
      const previous = String.fromCharCode(96 + level)
      const name = String.fromCharCode(97 + level)
      lines.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`)
    }
    lines.push('title: bomb', '---', 'text')
    const { notes, skipped } = await readAll(markdownFormat, singleFile('bomb.md', lines.join('\n')))
    assert.equal(notes.length, 0)
    assert.match(skipped[0]?.reason ?? '', /front matter is not readable YAML/)
  })

  it('skips a file that is not UTF-8 text', async () => {
    const archive: Archive = {
      entries: [{ path: 'latin1.md', size: 2, open: async () => Readable.from([Buffer.from([0xe9, 0x0a])]) }],
      close: async () => {},
    }
    const { skipped } = await readAll(markdownFormat, archive)
    assert.deepEqual(skipped, [{ label: 'latin1.md', reason: 'it is not UTF-8 text' }])
  })
})
