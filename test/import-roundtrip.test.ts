// The round trip, as a property on both stores over a socket: any notes an account holds (titles, texts, tags,
// pins, the trash, dates, linked files' bytes), exported as Markdown or JSON through GET /export-notes and imported
// into a new account through POST /import-notes, come back the same; importing the export again adds nothing.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import type { AttachmentAnswer } from '../src/attachment-shape.js'
import { type Harness, addNote, register, startHarness } from './support/harness.js'
import { uploaded } from './support/attachments.js'
import { type HeldNote, heldNotes, importFile } from './support/import-http.js'
import { storeKinds } from './support/stores.js'

const text = (max: number) =>
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: max }).filter((s) => s.trim() !== '')

const noteArb = fc.record({
  title: text(40),
  body: fc.string({ unit: 'grapheme', maxLength: 200 }),
  tags: fc.uniqueArray(text(12), { maxLength: 4 }),
  pinned: fc.boolean(),
  trashed: fc.boolean(),
  files: fc.array(fc.uint8Array({ minLength: 1, maxLength: 64 }), { maxLength: 2 }),
  fileName: fc.constantFrom('photo.png', 'notes (1).txt', 'résumé final.pdf', 'a#b?.bin'),
})

type NoteSpec = typeof noteArb extends fc.Arbitrary<infer T> ? T : never

/** What must come back: the note's fields, its place, and its files' bytes, with attachment ids left out of links. */
function comparable(held: HeldNote[]) {
  return held
    .map(({ note, trashed, files }) => ({
      title: note.title,
      content: note.content.replace(/\/attachments\/[0-9a-f]{24}\//g, '/attachments/ID/'),
      tags: note.tags,
      isPinned: note.isPinned,
      createdOn: note.createdOn,
      updatedOn: note.updatedOn,
      trashed,
      files: files.map((f) => `${f.name}:${f.bytes.toString('hex')}`).sort(),
    }))
    .sort((a, b) => (a.title + a.content < b.title + b.content ? -1 : 1))
}

async function fill(h: Harness, token: string, notes: NoteSpec[]): Promise<void> {
  for (const note of notes) {
    const links: string[] = []
    for (const bytes of note.files) {
      const file: AttachmentAnswer = await uploaded(h, token, { filename: note.fileName, bytes: Buffer.from(bytes) })
      links.push(`[${note.fileName}](${file.url})`)
    }
    const content = [note.body || '.', ...links].join('\n')
    const added = await addNote(h.client, token, { title: note.title, content, tags: note.tags })
    if (note.pinned) {
      const pinned = await h.client.request('PUT', `/update-note-pinned/${added._id}`, {
        token,
        body: { isPinned: true },
      })
      assert.equal(pinned.status, 200, pinned.text)
    }
    if (note.trashed) {
      const deleted = await h.client.request('DELETE', `/delete-note/${added._id}`, { token })
      assert.equal(deleted.status, 200, deleted.text)
    }
  }
}

for (const storeKind of storeKinds()) {
  describe(`export and import again (${storeKind})`, () => {
    let h: Harness
    before(async () => {
      h = await startHarness('http', { storeKind })
    })
    after(async () => h.close())

    for (const format of ['markdown', 'json'] as const) {
      it(`gives back the same notes, tags, pins, trash, dates and files through a ${format} export`, async () => {
        await fc.assert(
          fc.asyncProperty(fc.array(noteArb, { minLength: 1, maxLength: 5 }), async (notes) => {
            const from = await register(h.client)
            await fill(h, from.token, notes)
            const exported = await h.client.request('GET', `/export-notes?format=${format}&trash=true`, {
              token: from.token,
            })
            assert.equal(exported.status, 200, exported.text)
            assert.equal(exported.headers['content-type'], 'application/zip')
            assert.match(
              String(exported.headers['content-disposition']),
              /^attachment; filename="?notes-(markdown|json)-\d{4}-\d\d-\d\d\.zip"?$/,
            )

            const to = await register(h.client)
            const file = { filename: 'export.zip', bytes: exported.bytes }
            const imported = await importFile(h, to.token, file)
            assert.equal(imported.status, 200, imported.error)
            assert.equal(imported.summary?.imported, notes.length, JSON.stringify(imported.summary))
            assert.deepEqual(comparable(await heldNotes(h, to.token)), comparable(await heldNotes(h, from.token)))

            const again = await importFile(h, to.token, file)
            assert.equal(again.summary?.alreadyPresent, notes.length)
            assert.equal(again.summary?.imported, 0)
          }),
          { numRuns: 6 },
        )
      })
    }

    it('refuses a format it does not write, naming the ones it does', async () => {
      const a = await register(h.client)
      const reply = await h.client.request('GET', '/export-notes?format=pdf', { token: a.token })
      assert.equal(reply.status, 400)
      assert.equal((reply.json as { error: boolean }).error, true)
      const unauthorized = await h.client.request('GET', '/export-notes?format=json')
      assert.equal(unauthorized.status, 401)
    })
  })
}
