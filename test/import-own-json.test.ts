// The notes-service JSON export reader over exports written by the export's own code: JSON lines and one array, a zip
// and a folder, attachments linked from the text, the trash, skips, malformed files, and stable keys.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import fc from 'fast-check'
import { attachmentUrl } from '../src/attachment-shape.js'
import { openFolder, openZip } from '../src/transfer/formats/archive.js'
import { keepFormat } from '../src/transfer/formats/keep.js'
import { linkedFiles, ownJsonFormat } from '../src/transfer/formats/own-json.js'
import type { ExportedAttachment } from '../src/transfer/attachment-records.js'
import { bothArchives, readAll, withUrls, writeFolder, writeZip } from './support/import-fixtures/archive-files.js'
import { USER, ownJsonExport } from './support/import-fixtures/own-json.js'
import { tempDir } from './support/temp.js'

const temp = tempDir('import-own-json-')
after(() => temp.remove())
let dirs = 0
const fresh = () => join(temp.path, String(dirs++))

describe('notes-service JSON export import', () => {
  for (const [format, folder] of [
    ['lines', 'notes-service-export'],
    ['array', ''],
  ] as const) {
    it(`reads notes, trash and attachments as ${format}, ${folder === '' ? 'at the root' : 'in a top folder'}`, async () => {
      const { files, expected } = await ownJsonExport(format, folder)
      const { zip, folder: dir } = await bothArchives(fresh(), files)
      for (const archive of [zip, dir]) {
        assert.equal(await ownJsonFormat.probe(archive), true)
        assert.equal(await keepFormat.probe(archive), false)
        const { notes, skipped } = await readAll(ownJsonFormat, archive)
        assert.deepEqual(skipped, [])
        assert.deepEqual(
          notes.map((note) => ({
            key: note.key,
            title: note.title,
            content: withUrls(note),
            tags: note.tags,
            isPinned: note.isPinned,
            trashed: note.trashed,
            createdOn: note.createdOn,
            updatedOn: note.updatedOn,
            files: note.files.map(({ name, bytes }) => ({ name, bytes })),
          })),
          expected,
        )
        const linked = notes[0]!
        assert.deepEqual(
          linked.files.map((file) => file.ref),
          [
            `/attachments/65a100000000000000000001/photo%20(1).png`,
            `/attachments/65a100000000000000000002/voice%20memo.m4a`,
          ],
        )
      }
    })
  }

  it('reads a --pretty export and gives the same keys in two reads', async () => {
    const { files, expected } = await ownJsonExport('lines')
    const pretty = files.map((file) =>
      file.path.endsWith('.json')
        ? {
            ...file,
            bytes: String(file.bytes)
              .trim()
              .split('\n')
              .map((line) => JSON.stringify(JSON.parse(line), null, 2))
              .join('\n'),
          }
        : file,
    )
    const zipFile = await writeZip(join(temp.path, 'pretty.zip'), pretty)
    const keys = async () => (await readAll(ownJsonFormat, await openZip(zipFile))).notes.map((note) => note.key)
    const first = await keys()
    assert.deepEqual(
      first,
      expected.map((note) => note.key),
    )
    assert.deepEqual(await keys(), first)
  })

  it('skips a record it cannot take, with its line and reason, and reads the rest', async () => {
    const { files } = await ownJsonExport('lines')
    const notes = files.find((file) => file.path.endsWith('/notes.json'))!
    const lines = String(notes.bytes).trim().split('\n')
    const badDate = JSON.parse(lines[1]!) as Record<string, unknown>
    badDate.updatedOn = { $date: 'not a date' }
    notes.bytes = [lines[0], 'not json', JSON.stringify(badDate)].join('\n') + '\n'
    const { notes: read, skipped } = await readAll(ownJsonFormat, await openFolder(await writeFolder(fresh(), files)))
    assert.deepEqual(
      read.map((note) => note.title),
      ['Linked files', 'Deleted'],
    )
    assert.equal(skipped.length, 2)
    assert.equal(skipped[0]!.label, 'notes.json line 2')
    assert.match(skipped[0]!.reason, /not valid Extended JSON/)
    assert.deepEqual(skipped[1], { label: 'notes.json line 3', reason: 'updatedOn is not a date' })
  })

  it('refuses a truncated or unreadable notes.json as malformed', async () => {
    for (const bytes of ['{"_id": {"$oid": "65a100000000000000000010"}, "title": "cut', 'hello world\n']) {
      const archive = await openFolder(await writeFolder(fresh(), [{ path: 'notes.json', bytes }]))
      assert.equal(await ownJsonFormat.probe(archive), false)
      await assert.rejects(
        readAll(ownJsonFormat, archive),
        /^MalformedImportError: notes-service JSON export: notes.json line 1/,
      )
    }
  })

  it('does not claim a notes.json whose records are not notes-service notes', async () => {
    const archive = await openFolder(
      await writeFolder(fresh(), [{ path: 'x/notes.json', bytes: '{"title":"t","content":"c"}\n' }]),
    )
    assert.equal(await ownJsonFormat.probe(archive), false)
  })

  it('gives every attachment one ref, whatever form or case its links take', () => {
    const records = new Map<string, ExportedAttachment>()
    const ids = ['65a100000000000000000001', '65a100000000000000000002']
    const entry = { path: 'x', size: 0, open: () => Promise.reject(new Error('not read')) }
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme-ascii' }), { minLength: 2, maxLength: 2 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 3 }), fc.string()), {
          maxLength: 6,
        }),
        (names, links) => {
          records.clear()
          ids.forEach((id, i) =>
            records.set(id, {
              _id: id,
              userId: USER,
              name: names[i]! || 'f',
              type: 'a/b',
              size: 0,
              sha256: '',
              createdOn: '',
            }),
          )
          const content = links
            .map(([which, form, text]) => {
              const record = records.get(ids[which]!)!
              const url = [
                attachmentUrl(record),
                `/attachments/${record._id}`,
                `/attachments/${record._id.toUpperCase()}/other`,
                `(${attachmentUrl(record)})`,
              ][form]!
              return `${text.replace(/\/attachments/g, '')} ${url}`
            })
            .join('\n')
          const result = linkedFiles(content, records, () => entry)
          const used = new Set(links.map(([which]) => ids[which]))
          assert.equal(result.files.length, used.size)
          for (const file of result.files) {
            assert.ok(result.content.includes(file.ref))
            for (const other of result.files) if (other !== file) assert.ok(!other.ref.startsWith(file.ref))
          }
          // Every link to an attachment now reads as its file's ref.
          const refs = result.files.map((file) => file.ref)
          for (const match of result.content.matchAll(/\/attachments\/[0-9a-fA-F]{24}/g))
            assert.ok(refs.some((ref) => result.content.startsWith(ref, match.index)))
        },
      ),
    )
  })
})
