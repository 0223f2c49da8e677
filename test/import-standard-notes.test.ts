// The Standard Notes reader over backups written as the app writes them: alone and in a zip, tags from Tag items,
// pinned, archived and trashed in both places the app keeps them, other and deleted items ignored, a bad date
// skipped, encrypted and malformed backups refused, and stable keys.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import fc from 'fast-check'
import { openFolder, openZip } from '../src/transfer/formats/archive.js'
import { keepFormat } from '../src/transfer/formats/keep.js'
import { ownJsonFormat } from '../src/transfer/formats/own-json.js'
import { simplenoteFormat } from '../src/transfer/formats/simplenote.js'
import { standardNote, standardNotesFormat } from '../src/transfer/formats/standard-notes.js'
import { readAll, writeFolder, writeZip } from './support/import-fixtures/archive-files.js'
import { BACKUP_NAME, encryptedBackup, standardNotesBackup } from './support/import-fixtures/standard-notes.js'
import { tempDir } from './support/temp.js'

const temp = tempDir('import-standard-notes-')
after(() => temp.remove())
let dirs = 0
const fresh = () => join(temp.path, String(dirs++))

describe('Standard Notes import', () => {
  it('reads a decrypted backup alone and in its zip alike', async () => {
    const { backup, files, expected } = standardNotesBackup()
    const zip = await openZip(await writeZip(join(temp.path, 'backup.zip'), files))
    const alone = await openFolder(await writeFolder(fresh(), [{ path: 'backup.json', bytes: backup }]))
    for (const archive of [zip, alone]) {
      assert.equal(await standardNotesFormat.probe(archive), true)
      for (const other of [keepFormat, simplenoteFormat, ownJsonFormat]) assert.equal(await other.probe(archive), false)
      const { notes, skipped } = await readAll(standardNotesFormat, archive)
      assert.deepEqual(
        notes.map(({ key, title, content, tags, isPinned, trashed, createdOn, updatedOn }) => ({
          key,
          title,
          content,
          tags,
          isPinned,
          trashed,
          createdOn,
          updatedOn,
        })),
        expected,
      )
      assert.deepEqual(skipped, [{ label: 'Bad time', reason: 'created_at is missing or not a date' }])
    }
  })

  it('gives the same keys in two reads', async () => {
    const zipFile = await writeZip(join(temp.path, 'twice.zip'), standardNotesBackup().files)
    const keys = async () => (await readAll(standardNotesFormat, await openZip(zipFile))).notes.map((n) => n.key)
    assert.deepEqual(await keys(), await keys())
  })

  it('refuses an encrypted backup, saying to export a decrypted one', async () => {
    const archive = await openFolder(await writeFolder(fresh(), [{ path: BACKUP_NAME, bytes: encryptedBackup() }]))
    assert.equal(await standardNotesFormat.probe(archive), true)
    await assert.rejects(readAll(standardNotesFormat, archive), (err: Error) => {
      assert.equal(err.name, 'MalformedImportError')
      assert.match(err.message, /^Standard Notes: the backup is encrypted; export a decrypted backup/)
      return true
    })
  })

  it('refuses malformed JSON, naming the format', async () => {
    const archive = await openFolder(
      await writeFolder(fresh(), [{ path: BACKUP_NAME, bytes: '{"version": "004", "items": [' }]),
    )
    await assert.rejects(
      readAll(standardNotesFormat, archive),
      /^MalformedImportError: Standard Notes: .* is not valid JSON/,
    )
  })

  it('keeps arbitrary titles, texts and flags of a note', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (title, text, pinned, trashed, archived) => {
          const item = {
            uuid: 'u',
            content_type: 'Note',
            created_at: '2024-01-01T00:00:00.000Z',
            updated_at: '2024-01-02T00:00:00.000Z',
            content: { title, text, pinned, trashed, archived, references: [] },
          }
          const note = standardNote(JSON.parse(JSON.stringify(item)) as Record<string, unknown>, ['t'])
          assert.ok(!('reason' in note))
          assert.deepEqual(
            {
              title: note.title,
              content: note.content,
              isPinned: note.isPinned,
              trashed: note.trashed,
              tags: note.tags,
            },
            { title, content: text, isPinned: pinned, trashed, tags: archived ? ['t', 'archived'] : ['t'] },
          )
        },
      ),
    )
  })
})
