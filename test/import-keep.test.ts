// The Google Keep reader over Takeouts written as Takeout writes them: zip and folder, a localized folder name,
// attachments, checklists, labels, archive and colour, skips, malformed input, and stable keys.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import fc from 'fast-check'
import { openFolder, openZip } from '../src/transfer/formats/archive.js'
import { MalformedImportError } from '../src/transfer/formats/items.js'
import { keepFormat, keepNote } from '../src/transfer/formats/keep.js'
import { bothArchives, readAll, withUrls, writeFolder, writeZip } from './support/import-fixtures/archive-files.js'
import { type KeepJson, keepTakeout, usec } from './support/import-fixtures/keep.js'
import { tempDir } from './support/temp.js'

const temp = tempDir('import-keep-')
after(() => temp.remove())
let dirs = 0
const fresh = () => join(temp.path, String(dirs++))

describe('Google Keep import', () => {
  for (const folder of ['Takeout/Keep', 'Takeout/Google Notizen', 'Google Keep']) {
    it(`reads every mapped field from a zip and a folder under "${folder}"`, async () => {
      const { files, expected } = keepTakeout(folder)
      const { zip, folder: dir } = await bothArchives(fresh(), files)
      for (const archive of [zip, dir]) {
        assert.equal(await keepFormat.probe(archive), true)
        const { notes, skipped } = await readAll(keepFormat, archive)
        const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : 1)
        // The folder lists its files by name, the zip in the order written: both are compared by key.
        assert.deepEqual(
          notes.sort(byKey).map((note) => ({
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
          [...expected].sort(byKey),
        )
        assert.deepEqual(skipped, [
          { label: 'Broken time', reason: 'userEditedTimestampUsec is not a time in microseconds' },
        ])
      }
    })
  }

  it('labels a note by its title, or by its file name when it has none', async () => {
    const { files } = keepTakeout()
    const { notes } = await readAll(keepFormat, await openFolder(await writeFolder(fresh(), files)))
    assert.deepEqual(
      notes.map((note) => note.label),
      ['2021-06-01T12_00_00.000Z.json', 'Groceries', 'Trip [2023]'],
    )
  })

  it('gives each file a ref the content holds once, and no ref is the start of another', async () => {
    const { files } = keepTakeout()
    const { notes } = await readAll(keepFormat, await openZip(await writeZip(join(temp.path, 'refs.zip'), files)))
    const trip = notes.find((note) => note.title === 'Trip [2023]')!
    const refs = trip.files.map((file) => file.ref)
    assert.equal(new Set(refs).size, 3)
    for (const ref of refs) {
      assert.equal(trip.content.split(ref).length, 2)
      for (const other of refs) if (other !== ref) assert.ok(!other.startsWith(ref))
    }
  })

  it('gives the same keys in two reads, and in a zip and its extracted folder', async () => {
    const { files } = keepTakeout('Takeout/Keep')
    const keysOf = async (archive: Parameters<typeof readAll>[1]) =>
      (await readAll(keepFormat, archive)).notes.map((note) => note.key).sort()
    const zipFile = await writeZip(join(temp.path, 'stable.zip'), files)
    const first = await keysOf(await openZip(zipFile))
    assert.deepEqual(await keysOf(await openZip(zipFile)), first)
    const extracted = keepTakeout('Keep').files
    assert.deepEqual(await keysOf(await openFolder(await writeFolder(fresh(), extracted))), first)
  })

  it('skips an unparsable JSON file beside notes, and refuses an input with no note as malformed', async () => {
    const { files } = keepTakeout()
    files.push({ path: 'Takeout/Keep/Half.json', bytes: '{"title": "Half", "textContent": "cut' })
    const { notes, skipped } = await readAll(keepFormat, await openFolder(await writeFolder(fresh(), files)))
    assert.equal(notes.length, 3)
    assert.equal(skipped.length, 2)
    assert.equal(skipped.find((item) => item.label === 'Half.json')?.reason.includes('not valid JSON'), true)

    const lone = await openFolder(await writeFolder(fresh(), [{ path: 'Note.json', bytes: '{"title": ' }]))
    assert.equal(await keepFormat.probe(lone), false)
    await assert.rejects(readAll(keepFormat, lone), (err: Error) => {
      assert.ok(err instanceof MalformedImportError)
      assert.match(err.message, /^Google Keep: "Note.json" is not valid JSON/)
      return true
    })
    const none = await openFolder(await writeFolder(fresh(), [{ path: 'Keep/other.json', bytes: '{"a": 1}' }]))
    await assert.rejects(readAll(keepFormat, none), /^MalformedImportError: Google Keep: no Keep note found/)
  })

  it('reads a single JSON file given alone', async () => {
    const json = { title: 'Alone', textContent: 'text', userEditedTimestampUsec: usec('2024-02-02T00:00:00Z') }
    const archive = await openFolder(await writeFolder(fresh(), [{ path: 'Alone.json', bytes: JSON.stringify(json) }]))
    assert.equal(await keepFormat.probe(archive), true)
    const { notes } = await readAll(keepFormat, archive)
    assert.deepEqual(
      notes.map(({ key, title, content, createdOn }) => ({ key, title, content, createdOn })),
      [{ key: 'keep:Alone.json', title: 'Alone', content: 'text', createdOn: '2024-02-02T00:00:00.000Z' }],
    )
  })

  it('skips a note whose creation time cannot be read', () => {
    const json = { title: 't', textContent: '', userEditedTimestampUsec: 1, createdTimestampUsec: -5 }
    assert.deepEqual(keepNote(json, 't.json', new Map<string, never>()), {
      reason: 'createdTimestampUsec is not a time in microseconds',
    })
  })

  it('does not claim a Simplenote or notes-service export', async () => {
    const archive = await openFolder(
      await writeFolder(fresh(), [
        { path: 'source/notes.json', bytes: JSON.stringify({ activeNotes: [], trashedNotes: [] }) },
        { path: 'notes.json', bytes: '{"_id":{"$oid":"65a000000000000000000001"},"title":"t"}\n' },
      ]),
    )
    assert.equal(await keepFormat.probe(archive), false)
  })

  it('keeps arbitrary titles, texts, checklist items and labels', () => {
    const line = fc
      .string({ minLength: 1 })
      .filter((s) => s.trim() !== '' && !/\s/.test(s[0]!) && !/\s/.test(s.at(-1)!))
    fc.assert(
      fc.property(
        fc.string(),
        line,
        fc.array(fc.record({ text: line.filter((s) => !s.includes('\n')), isChecked: fc.boolean() })),
        fc.uniqueArray(line, { maxLength: 5 }),
        fc.boolean(),
        (title, text, listContent, labels, isPinned) => {
          const json: KeepJson = {
            title,
            textContent: text,
            listContent,
            labels: labels.map((name) => ({ name })),
            isPinned,
            userEditedTimestampUsec: usec('2024-01-01T00:00:00Z'),
          }
          const note = keepNote(JSON.parse(JSON.stringify(json)) as KeepJson, 'n.json', new Map<string, never>())
          assert.ok(!('reason' in note))
          assert.equal(note.title, title)
          assert.equal(note.isPinned, isPinned)
          assert.deepEqual(note.tags, labels)
          const checklist = listContent.map((item) => `- [${item.isChecked ? 'x' : ' '}] ${item.text}`)
          assert.equal(note.content, [text, ...(checklist.length ? [checklist.join('\n')] : [])].join('\n\n'))
        },
      ),
    )
  })
})
