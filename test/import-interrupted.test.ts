// An import cut off part-way, then run again, and two runs of one import at once, on both stores with the cache layer
// on and off: every note ends up once, with each of its files once, and nothing the first run wrote is written twice.
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { after, describe, it } from 'node:test'
import fc from 'fast-check'
import { diskBlobs } from '../src/blobs/disk.js'
import { defaultConfig } from '../src/config.js'
import { AttachmentService } from '../src/services/attachments.js'
import type { ImportEvent, ImportSource } from '../src/transfer/formats/items.js'
import { NoteImportService } from '../src/transfer/note-import.js'
import { makeUser } from './support/store-contract.js'
import { type TestStore, openTestStore, storeKinds } from './support/stores.js'
import { tempDir } from './support/temp.js'

/** A source of `count` notes, the odd ones with a file; it fails after `failAfter` items when given. */
function source(count: number, failAfter?: number): ImportSource {
  async function* items(): AsyncGenerator<ImportEvent> {
    for (let i = 0; i < count; i++) {
      if (i === failAfter) throw new Error('the connection was cut')
      const files =
        i % 2 === 1
          ? [{ ref: `ref-${i}-end`, name: `f${i}.txt`, open: async () => Readable.from([Buffer.from(`bytes ${i}`)]) }]
          : []
      yield {
        note: {
          key: `note-${i}`,
          label: `note ${i}`,
          title: `Note ${i}`,
          content: files.length ? `see [file](ref-${i}-end)` : `text ${i}`,
          tags: ['imported'],
          isPinned: i === 0,
          trashed: i === count - 1,
          files,
        },
      }
    }
  }
  return { format: 'markdown', items, close: async () => {} }
}

for (const kind of storeKinds()) {
  for (const caches of [true, false]) {
    describe(`an import interrupted or run twice at once (${kind}, caches ${caches ? 'on' : 'off'})`, () => {
      const dirs: Array<{ remove(): void }> = []
      const stores: TestStore[] = []
      after(async () => {
        for (const store of stores) await store.close()
        for (const dir of dirs) dir.remove()
      })

      async function setUp() {
        const store = await openTestStore(kind, caches)
        stores.push(store)
        const dir = tempDir('import-interrupted-')
        dirs.push(dir)
        const files = new AttachmentService(store, diskBlobs(dir.path), defaultConfig.attachments)
        const user = makeUser()
        assert.ok(await store.createUser(user))
        return { store, user, service: new NoteImportService(store, files, 30) }
      }

      async function assertWhole(store: TestStore, userId: string, count: number) {
        const live = JSON.parse(String(await store.listNotesJson(userId))) as { title: string }[]
        const trash = await store.listTrash(userId)
        const titles = [...live, ...trash].map((note) => note.title).sort()
        assert.deepEqual(titles, Array.from({ length: count }, (_, i) => `Note ${i}`).sort())
        const files = await store.listAttachments(userId)
        assert.equal(files.length, Math.floor(count / 2), 'one attachment per file, none twice')
        for (const file of files) assert.equal(file.notes.length, 1, `${file.name} is linked from its note`)
      }

      it('finishes when run again after being cut off anywhere', async () => {
        await fc.assert(
          fc.asyncProperty(fc.integer({ min: 0, max: 7 }), async (failAfter) => {
            const { store, user, service } = await setUp()
            await assert.rejects(service.run(user._id, source(8, failAfter)), /the connection was cut/)
            const again = await service.run(user._id, source(8))
            assert.equal(again.alreadyPresent, failAfter)
            assert.equal(again.imported, 8 - failAfter)
            await assertWhole(store, user._id, 8)
          }),
          { numRuns: 4 },
        )
      })

      it('writes each note once when two runs of one import race', async () => {
        const { store, user, service } = await setUp()
        const [a, b] = await Promise.all([service.run(user._id, source(12)), service.run(user._id, source(12))])
        assert.equal(a.imported + b.imported, 12, JSON.stringify({ a, b }))
        assert.equal(a.alreadyPresent + b.alreadyPresent, 12)
        await assertWhole(store, user._id, 12)
      })
    })
  }
}
