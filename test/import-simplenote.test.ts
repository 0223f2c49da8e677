// The Simplenote reader over exports written as Simplenote writes them: the zip and notes.json alone, first line as
// title, pinned, tags and trash, a bad date skipped, malformed JSON refused, and stable keys.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import fc from 'fast-check'
import { openFolder, openZip } from '../src/transfer/formats/archive.js'
import { keepFormat } from '../src/transfer/formats/keep.js'
import { ownJsonFormat } from '../src/transfer/formats/own-json.js'
import { simplenoteFormat, splitContent } from '../src/transfer/formats/simplenote.js'
import { readAll, writeFolder, writeZip } from './support/import-fixtures/archive-files.js'
import { simplenoteExport } from './support/import-fixtures/simplenote.js'
import { tempDir } from './support/temp.js'

const temp = tempDir('import-simplenote-')
after(() => temp.remove())
let dirs = 0
const fresh = () => join(temp.path, String(dirs++))

describe('Simplenote import', () => {
  it('reads the zip and notes.json alone alike, skipping a note with a bad date', async () => {
    const { notesJson, files, expected } = simplenoteExport()
    const zip = await openZip(await writeZip(join(temp.path, 'notes.zip'), files))
    const alone = await openFolder(await writeFolder(fresh(), [{ path: 'notes.json', bytes: notesJson }]))
    for (const archive of [zip, alone]) {
      assert.equal(await simplenoteFormat.probe(archive), true)
      assert.equal(await ownJsonFormat.probe(archive), false)
      assert.equal(await keepFormat.probe(archive), false)
      const { notes, skipped } = await readAll(simplenoteFormat, archive)
      assert.deepEqual(
        notes.map(({ key, title, content, tags, isPinned, trashed, createdOn, updatedOn, files }) => {
          assert.deepEqual(files, [])
          return { key, title, content, tags, isPinned, trashed, createdOn, updatedOn }
        }),
        expected,
      )
      assert.deepEqual(skipped, [{ label: 'bad-date', reason: 'creationDate is missing or not a date' }])
    }
  })

  it('gives the same keys in two reads', async () => {
    const zipFile = await writeZip(join(temp.path, 'twice.zip'), simplenoteExport().files)
    const keys = async () => (await readAll(simplenoteFormat, await openZip(zipFile))).notes.map((note) => note.key)
    assert.deepEqual(await keys(), await keys())
  })

  it('refuses malformed JSON and a notes.json without notes, naming the format', async () => {
    for (const [bytes, problem] of [
      ['{"activeNotes": [', /source\/notes.json is not valid JSON/],
      ['{"notes": []}', /holds no activeNotes or trashedNotes list/],
    ] as const) {
      const archive = await openFolder(await writeFolder(fresh(), [{ path: 'source/notes.json', bytes }]))
      await assert.rejects(readAll(simplenoteFormat, archive), (err: Error) => {
        assert.equal(err.name, 'MalformedImportError')
        assert.match(err.message, /^Simplenote: /)
        assert.match(err.message, problem)
        return true
      })
    }
  })

  it('splits any content into its first line as title and the rest without leading blank lines', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/[\r\n]/.test(s)),
        fc.array(fc.constantFrom('', ' ', '\t')),
        fc.string().filter((s) => !/^[ \t]*\r?\n/.test(s) && !/^\s*$/.test(s.split('\n')[0] ?? '')),
        (first, blanks, rest) => {
          const content = [first, ...blanks, rest].join('\n')
          assert.deepEqual(splitContent(content, false), { title: first.trim(), content: rest })
        },
      ),
    )
  })
})
