// POST /import-notes on both stores over a real socket, with every format's fixture in its app's real structure:
// what the summary says is what the account then holds (titles, tags, pins, trash, dates, files' bytes), and the
// same file imported again adds nothing. A dry run writes nothing.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { readFile } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import { type Account, type Harness, register, startHarness } from './support/harness.js'
import { type ExpectedHeld, assertHolds, heldNotes, importFile } from './support/import-http.js'
import { type FixtureFile, writeZip } from './support/import-fixtures/archive-files.js'
import { enexFile } from './support/import-fixtures/enex.js'
import { PNG } from './support/import-fixtures/enex-read.js'
import { keepTakeout } from './support/import-fixtures/keep.js'
import { obsidianVault } from './support/import-fixtures/markdown.js'
import { ownJsonExport } from './support/import-fixtures/own-json.js'
import { simplenoteExport } from './support/import-fixtures/simplenote.js'
import { standardNotesBackup } from './support/import-fixtures/standard-notes.js'
import { storeKinds } from './support/stores.js'
import { tempDir } from './support/temp.js'

interface Case {
  name: string
  format: string
  file: () => Promise<{ filename: string; bytes: Buffer }>
  expected: () => Promise<ExpectedHeld[]>
  skipped: number
}

const scratch = tempDir('import-http-')
const zipOf = async (name: string, files: FixtureFile[]) => ({
  filename: name,
  bytes: await readFile(await writeZip(join(scratch.path, `${name}-${Date.now()}.zip`), files)),
})

const enexNotes = [
  {
    title: 'Trip plan',
    created: '20240102T030405Z',
    updated: '20240103T040506Z',
    tags: ['travel'],
    body: '<div>Pack <b>light</b></div><en-todo checked="true"/>passport<br/><en-media hash="HASH" type="image/png"/>',
    resources: [{ bytes: PNG, mime: 'image/png', fileName: 'map.png' }],
  },
  { title: 'Second', created: '20230101T000000Z', updated: '20230101T000000Z', body: '<p>Just text</p>' },
]

const CASES: Case[] = [
  {
    name: 'a Google Keep Takeout zip, in a localized folder',
    format: 'Google Keep',
    file: () => zipOf('takeout', keepTakeout('Takeout/Google Notizen').files),
    expected: async () => keepTakeout().expected,
    skipped: 1,
  },
  {
    name: 'an Obsidian vault zip',
    format: 'Markdown',
    file: () =>
      zipOf(
        'vault',
        Object.entries(obsidianVault().files).map(([path, bytes]) => ({ path, bytes })),
      ),
    expected: async () => obsidianVault().notes,
    skipped: obsidianVault().skipped.length,
  },
  {
    name: 'an Evernote .enex',
    format: 'Evernote',
    file: async () => ({ filename: 'My Notes.enex', bytes: enexFile(fixEnex()).bytes }),
    expected: async () =>
      enexFile(fixEnex()).expected.map((note) => ({
        ...note,
        isPinned: false,
        files: note.files.map(() => ({ bytes: PNG })),
      })),
    skipped: 0,
  },
  {
    name: "Simplenote's notes.json",
    format: 'Simplenote',
    file: async () => ({ filename: 'notes.json', bytes: Buffer.from(simplenoteExport().notesJson) }),
    expected: async () => simplenoteExport().expected.map((note) => ({ ...note, files: [] })),
    skipped: 1,
  },
  {
    name: 'a decrypted Standard Notes backup',
    format: 'Standard Notes',
    file: async () => ({
      filename: 'Standard Notes Backup and Import File.txt',
      bytes: Buffer.from(standardNotesBackup().backup),
    }),
    expected: async () => standardNotesBackup().expected.map((note) => ({ ...note, files: [] })),
    skipped: 1,
  },
  {
    name: "notes-service's JSON export",
    format: 'notes-service JSON export',
    file: async () => zipOf('export', (await ownJsonExport('lines')).files),
    expected: async () => (await ownJsonExport('lines')).expected,
    skipped: 0,
  },
]

/** The ENEX notes with each en-media naming its resource's MD5. */
function fixEnex() {
  const md5 = createHash('md5').update(PNG).digest('hex')
  return enexNotes.map((note) => ({ ...note, body: note.body.replace('HASH', md5) }))
}
for (const storeKind of storeKinds()) {
  describe(`POST /import-notes (${storeKind})`, () => {
    let h: Harness
    before(async () => {
      h = await startHarness('http', { storeKind })
    })
    after(async () => {
      await h.close()
    })

    for (const c of CASES) {
      it(`imports ${c.name} as the fixture says, and a second time adds nothing`, async () => {
        const a: Account = await register(h.client)
        const file = await c.file()
        const expected = await c.expected()
        const dry = await importFile(h, a.token, file, '?dryRun=true')
        assert.equal(dry.status, 200, dry.error)
        assert.equal(dry.summary?.dryRun, true)
        assert.equal(dry.summary?.imported, expected.length)
        assert.deepEqual(await heldNotes(h, a.token), [], 'a dry run writes nothing')

        const first = await importFile(h, a.token, file)
        assert.equal(first.status, 200, first.error)
        const summary = first.summary!
        assert.equal(summary.format, c.format)
        assert.equal(summary.stopped, null)
        assert.equal(summary.imported, expected.length, JSON.stringify(summary.skipped))
        assert.equal(summary.skippedCount, c.skipped, JSON.stringify(summary.skipped))
        assert.equal(summary.items, summary.imported + summary.alreadyPresent + summary.skippedCount)
        assertHolds(await heldNotes(h, a.token), expected)

        const again = await importFile(h, a.token, file)
        assert.equal(again.summary?.imported, 0)
        assert.equal(again.summary?.alreadyPresent, expected.length)
        assert.equal(again.summary?.attachments, 0)
        assertHolds(await heldNotes(h, a.token), expected)
        const files = await h.client.request('GET', '/get-attachments', { token: a.token })
        const count = expected.reduce((sum, note) => sum + note.files.length, 0)
        assert.ok((files.json as { attachments: unknown[] }).attachments.length >= count)
      })
    }

    it("puts what it imports in the account's change feed, as any write", async () => {
      const a = await register(h.client)
      const start = await h.client.request('GET', '/get-changes', { token: a.token })
      assert.equal(start.status, 200, start.text)
      const { cursor } = start.json as { cursor: string }
      const imported = await importFile(h, a.token, await CASES[3]!.file())
      assert.equal(imported.status, 200, imported.error)
      const changes = await h.client.request('GET', `/get-changes?since=${encodeURIComponent(cursor)}`, {
        token: a.token,
      })
      assert.equal(changes.status, 200, changes.text)
      const live = (await heldNotes(h, a.token)).filter((held) => !held.trashed).map((held) => held.note._id)
      const changed = (changes.json as { changes: { noteId: string; note: unknown }[] }).changes
      const shown = changed.filter((change) => change.note !== null).map((change) => change.noteId)
      assert.deepEqual(shown.sort(), live.sort())
    })
  })
}
