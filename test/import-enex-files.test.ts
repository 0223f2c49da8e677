// The Evernote reader (src/transfer/formats/enex.ts) over whole files: notes skipped one by one (dates, invalid UTF-8, size)
// while the rest import, files refused whole (entities, truncation, not XML), probing, path order, and a large
// resource that streams through a scratch file.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { openFolder } from '../src/transfer/formats/archive.js'
import { enexFormat } from '../src/transfer/formats/enex.js'
import { ResourceSink } from '../src/transfer/formats/enex-resource.js'
import { MAX_SOURCE_NOTE_BYTES, MalformedImportError } from '../src/transfer/formats/items.js'
import { ENEX_END, ENEX_PROLOG, enexFile, writeLargeResourceEnex } from './support/import-fixtures/enex.js'
import { PNG, memoryArchive, readArchive, readEnex } from './support/import-fixtures/enex-read.js'
import { tempDir } from './support/temp.js'

let scratch: ReturnType<typeof tempDir>
before(() => (scratch = tempDir('enex-test-')))
after(() => scratch.remove())

async function refusal(bytes: Buffer): Promise<string> {
  let message = ''
  await assert.rejects(readEnex(bytes, scratch.path), (err: Error) => {
    assert.ok(err instanceof MalformedImportError, `${err.name}: ${err.message}`)
    message = err.message
    return true
  })
  return message
}

describe('Evernote import: skipped notes', () => {
  it('skips a note whose date cannot be read, naming the date, and imports the rest', async () => {
    const { bytes } = enexFile([
      { title: 'Before', body: '<div>1</div>' },
      {
        title: 'Bad date',
        created: '2023-13-45',
        body: '<div>2</div>',
        resources: [{ bytes: PNG, mime: 'image/png' }],
      },
      { title: 'Bad month', updated: '20231301T000000Z', body: '<div>3</div>' },
      { title: 'After', body: '<div>4</div>' },
    ])
    const { notes, skipped } = await readEnex(bytes, scratch.path)
    assert.deepEqual(
      notes.map((note) => note.title),
      ['Before', 'After'],
    )
    assert.deepEqual(skipped, [
      { label: 'Bad date (My Notes.enex)', reason: 'its created date "2023-13-45" cannot be read' },
      { label: 'Bad month (My Notes.enex)', reason: 'its updated date "20231301T000000Z" cannot be read' },
    ])
  })

  it('skips a note holding bytes that are not UTF-8, and imports the others', async () => {
    const text = enexFile([
      { title: 'Good one', body: '<div>héllo wörld ✓</div>' },
      { title: 'Broken BROKEN', body: '<div>x</div>' },
      { title: 'Good two', body: '<div>ok</div>' },
    ]).bytes.toString('utf8')
    const [head, tail] = text.split('BROKEN') as [string, string]
    const bytes = Buffer.concat([Buffer.from(head), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(tail)])
    const { notes, skipped } = await readEnex(bytes, scratch.path)
    assert.deepEqual(
      notes.map((note) => [note.title, note.content]),
      [
        ['Good one', 'héllo wörld ✓'],
        ['Good two', 'ok'],
      ],
    )
    assert.equal(skipped.length, 1)
    assert.match(skipped[0]?.reason ?? '', /not UTF-8/)
  })

  it('skips a note whose ENML is over MAX_SOURCE_NOTE_BYTES, and imports the rest', async () => {
    const big = `<div>${'word '.repeat(MAX_SOURCE_NOTE_BYTES / 5 + 10)}</div>`
    const { bytes } = enexFile([
      { title: 'Huge', body: big, resources: [{ bytes: PNG, mime: 'image/png' }] },
      { title: 'Small', body: '<div>s</div>' },
    ])
    const { notes, skipped } = await readArchive(memoryArchive({ 'big.enex': bytes }, 64 * 1024), scratch.path)
    assert.deepEqual(
      notes.map((note) => note.title),
      ['Small'],
    )
    assert.equal(skipped[0]?.label, 'Huge (big.enex)')
    assert.match(skipped[0]?.reason ?? '', /too large/)
    assert.deepEqual(readdirSync(scratch.path), [], 'a skipped note leaves no scratch file')
  })
  it('imports a note whose resource is not base64 without that resource', async () => {
    const raw =
      ENEX_PROLOG +
      '<note><title>Bad data</title><content><![CDATA[<en-note><div>kept</div></en-note>]]></content>' +
      '<resource><data encoding="base64">QUJD*RA==</data><mime>image/png</mime></resource></note>' +
      ENEX_END
    const { notes, skipped } = await readEnex(Buffer.from(raw), scratch.path)
    assert.deepEqual(skipped, [])
    assert.deepEqual(
      notes.map((note) => [note.title, note.content, note.files.length]),
      [['Bad data', 'kept', 0]],
    )
    assert.deepEqual(readdirSync(scratch.path), [])
  })
})

describe('Evernote import: refused files', () => {
  it('refuses a billion-laughs file: its DOCTYPE declares entities', async () => {
    const laughs = [
      '<?xml version="1.0"?>',
      '<!DOCTYPE en-export [',
      '<!ENTITY lol "lol">',
      ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`),
      ']>',
      '<en-export><note><title>&lol9;</title></note></en-export>',
    ].join('\n')
    const message = await refusal(Buffer.from(laughs))
    assert.match(message, /^Evernote: "My Notes\.enex" has a DOCTYPE that declares entities/)
  })

  it('refuses an internal subset with an external entity, fetching nothing', async () => {
    const xxe =
      '<?xml version="1.0"?>\n<!DOCTYPE en-export SYSTEM "http://xml.evernote.com/pub/evernote-export4.dtd" ' +
      '[ <!ENTITY secret SYSTEM "file:///etc/passwd"> ]>\n<en-export><note><title>&secret;</title></note></en-export>'
    assert.match(await refusal(Buffer.from(xxe)), /declares entities/)
  })

  it('refuses an entity that XML does not define, rather than expanding it', async () => {
    const raw = ENEX_PROLOG + '<note><title>a&nbsp;b</title></note>' + ENEX_END
    assert.match(await refusal(Buffer.from(raw)), /not well-formed XML \(Invalid character entity, at line 4/)
  })

  it('refuses a truncated file and a file that is not XML', async () => {
    const { bytes } = enexFile([
      { title: 'One', body: '<div>1</div>' },
      { title: 'Two', body: '<div>2</div>', resources: [{ bytes: PNG, mime: 'image/png' }] },
    ])
    const cut = bytes.subarray(0, bytes.indexOf('<mime>'))
    assert.match(await refusal(cut), /"My Notes\.enex" ends before its XML is complete/)
    assert.match(await refusal(PNG), /"My Notes\.enex" is not well-formed XML/)
    assert.match(await refusal(Buffer.from('')), /holds no <en-export> element/)
    assert.match(await refusal(Buffer.from('<html><body/></html>')), /is not an Evernote export \(its root is <html>\)/)
  })
})

describe('Evernote import: archives', () => {
  it('probes by name or by the first bytes, and reads every .enex entry in path order', async () => {
    const a = enexFile([{ title: 'From b', body: '<div>b</div>' }]).bytes
    const b = enexFile([{ title: 'From a', body: '<div>a</div>' }]).bytes
    assert.equal(await enexFormat.probe(memoryArchive({ 'x/B.ENEX': a })), true)
    assert.equal(await enexFormat.probe(memoryArchive({ 'export.xml': a })), true)
    assert.equal(await enexFormat.probe(memoryArchive({ 'note.md': Buffer.from('# hi') })), false)
    const { notes } = await readArchive(
      memoryArchive({ 'z/b.enex': a, 'notes.md': Buffer.from('x'), 'a.enex': b }),
      scratch.path,
    )
    assert.deepEqual(
      notes.map((note) => note.label),
      ['From a (a.enex)', 'From b (z/b.enex)'],
    )
  })

  it('streams a 20 MB resource to a scratch file: right MD5, and never held as one string nor kept in the heap', async () => {
    const folder = tempDir('enex-large-')
    try {
      const size = 20 * 2 ** 20
      const expectedMd5 = await writeLargeResourceEnex(join(folder.path, 'large.enex'), size)
      writeFileSync(join(folder.path, 'small.enex'), enexFile([{ title: 'Small', body: '<div>s</div>' }]).bytes)
      // Every piece of base64 text the parser hands over passes here: none may be the whole resource.
      let longestText = 0
      const prototype = ResourceSink.prototype
      const descriptor = Object.getOwnPropertyDescriptor(prototype, 'write') as PropertyDescriptor
      const write = descriptor.value as (this: ResourceSink, text: string) => void
      prototype.write = function (this: ResourceSink, text: string) {
        longestText = Math.max(longestText, text.length)
        write.call(this, text)
      }
      after(() => Object.defineProperty(prototype, 'write', descriptor))
      const source = enexFormat.source(await openFolder(folder.path), { scratchDir: scratch.path })
      setFlagsFromString('--expose-gc')
      const gc = runInNewContext('gc') as () => void
      gc()
      const heapBefore = process.memoryUsage().heapUsed
      let checked = false
      for await (const event of source.items()) {
        if (!('note' in event) || event.note.title !== 'Large') continue
        gc()
        const heapGrowth = process.memoryUsage().heapUsed - heapBefore
        // A reader that kept the base64 text or the bytes would hold at least 20 MB here.
        assert.ok(heapGrowth < size / 2, `the heap grew by ${heapGrowth} bytes`)
        const [file] = event.note.files
        assert.equal(file?.name, 'file')
        const hash = createHash('md5')
        let length = 0
        for await (const chunk of await file.open()) {
          hash.update(chunk as Buffer)
          length += (chunk as Buffer).length
        }
        assert.equal(length, size)
        assert.equal(hash.digest('hex'), expectedMd5)
        assert.equal(event.note.content, 'big file\n\n[file](notes-import:file:0)')
        checked = true
      }
      await source.close()
      assert.ok(checked)
      assert.ok(longestText > 0 && longestText <= 1024 * 1024, `a text of ${longestText} characters was held whole`)
      assert.deepEqual(readdirSync(scratch.path), [], 'an opened scratch file is removed')
    } finally {
      folder.remove()
    }
  })
})
