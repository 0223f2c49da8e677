// The change feed's promise (docs/sync.md, "The change feed"), as a property: whatever writes two instances make at
// once, a replica that applies every page from any cursor, read at any moment (during the writes too, with any page
// size, a page at a time as a device reads), ends equal to the server's final listing. On both stores, with the
// cache layer on each instance.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { defaultConfig } from '../src/config.js'
import { type Harness, type NoteBody, register, startHarness } from './support/harness.js'
import { type StoreWithSql, openStoreWithSql } from './support/sql-stores.js'
import { SERVICE_LIMITS, storeKinds } from './support/stores.js'

type Write =
  | { kind: 'add'; title: string }
  | { kind: 'edit' | 'pin' | 'delete' | 'restore' | 'forever'; pick: number; title: string }
/** One turn: writes on both instances, and replica reads, all at once. */
type Turn = { writes: Array<{ on: 0 | 1; write: Write }>; reads: Array<{ reader: number; on: 0 | 1; limit: number }> }

const title = fc.constantFrom('alpha', 'beta', 'Ωmega', '日本 😀')
const write: fc.Arbitrary<Write> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('add' as const), title }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constantFrom('edit' as const, 'pin' as const, 'delete' as const, 'restore' as const, 'forever' as const),
      pick: fc.nat(30),
      title,
    }),
  },
)
const READERS = 3
const turn: fc.Arbitrary<Turn> = fc.record({
  writes: fc.array(fc.record({ on: fc.constantFrom<0 | 1>(0, 1), write }), { minLength: 1, maxLength: 6 }),
  reads: fc.array(
    fc.record({ reader: fc.nat(READERS - 1), on: fc.constantFrom<0 | 1>(0, 1), limit: fc.integer({ min: 1, max: 4 }) }),
    { maxLength: 3 },
  ),
})

type Page = { changes: Array<{ noteId: string; note: NoteBody | null }>; cursor: string; more: boolean }

/** A device's copy of the account: started by a listing without `since`, then following the feed. */
class Replica {
  notes = new Map<string, NoteBody>()
  cursor: string | undefined
  private reading: Promise<unknown> = Promise.resolve()
  /** As a device does, one page at a time: two reads from the same cursor would apply their pages in either order. */
  read(h: Harness, token: string, limit: number): Promise<boolean> {
    const page = this.reading.then(() => this.readPage(h, token, limit))
    this.reading = page.catch(() => {})
    return page
  }
  /** Reads one page and applies it: false when the feed has no more for now. */
  async readPage(h: Harness, token: string, limit: number): Promise<boolean> {
    const since = this.cursor === undefined ? '' : `&since=${encodeURIComponent(this.cursor)}`
    const res = await h.client.request('GET', `/get-changes?limit=${limit}${since}`, { token })
    assert.equal(res.status, 200, `GET /get-changes: ${res.status} ${res.text}`)
    const page = res.json as Page
    if (this.cursor === undefined)
      assert.ok(
        page.changes.every((c) => c.note !== null),
        'a first listing holds only live notes',
      )
    for (const c of page.changes) {
      if (c.note) this.notes.set(c.noteId, c.note)
      else this.notes.delete(c.noteId)
    }
    this.cursor = page.cursor
    return page.more
  }
}

const byId = (notes: Iterable<NoteBody>) => [...notes].sort((a, b) => a._id.localeCompare(b._id))

for (const kind of storeKinds()) {
  describe(`change feed against a model (${kind}, two instances)`, () => {
    let db: StoreWithSql
    let instances: [Harness, Harness]
    before(async () => {
      db = await openStoreWithSql(kind, SERVICE_LIMITS)
      // An account per run, and more while fast-check shrinks a failure: no registration limit hides the counterexample.
      const config = { bruteForce: { ...defaultConfig.bruteForce, enabled: false } }
      instances = [
        await startHarness('inject', { store: db.store, config }),
        await startHarness('inject', { store: await db.openAnother(SERVICE_LIMITS), config }),
      ]
    })
    after(async () => {
      for (const h of instances) await h.app.close()
      await db.close()
    })

    it('every replica, from any cursor read at any moment, ends equal to the final listing', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 8 }), async (turns) => {
          const { token } = await register(instances[0].client, 'Feed')
          const ids: string[] = []
          const replicas = Array.from({ length: READERS }, () => new Replica())
          const send = (on: 0 | 1, method: string, path: string, body?: unknown) =>
            instances[on].client.request(method, path, { token, ...(body === undefined ? {} : { body }) })
          const apply = async (on: 0 | 1, w: Write) => {
            if (w.kind === 'add') {
              const res = await send(on, 'POST', '/add-note', { title: w.title, content: 'c' })
              // The status and body say what the service answered, should it answer anything but the note.
              assert.equal(res.status, 200, `POST /add-note: ${res.status} ${res.text}`)
              ids.push((res.json as { note: NoteBody }).note._id)
              return
            }
            const id = ids[w.pick % Math.max(1, ids.length)]
            if (id === undefined) return
            const paths = {
              edit: ['PUT', `/edit-note/${id}`, { content: w.title }],
              pin: ['PUT', `/update-note-pinned/${id}`, { isPinned: w.pick % 2 === 0 }],
              delete: ['DELETE', `/delete-note/${id}`],
              restore: ['PUT', `/restore-note/${id}`],
              forever: ['DELETE', `/delete-note-forever/${id}`],
            } as const
            const [method, path, body] = paths[w.kind] as readonly [string, string, unknown?]
            const res = await send(on, method, path, body)
            assert.ok([200, 404].includes(res.status), `${method} ${path}: ${res.status} ${res.text}`)
          }
          for (const t of turns) {
            await Promise.all([
              ...t.writes.map((w) => apply(w.on, w.write)),
              ...t.reads.map((r) => replicas[r.reader]!.read(instances[r.on], token, r.limit)),
            ])
          }
          const listing = (await send(0, 'GET', '/get-all-notes')).json as { notes: NoteBody[] }
          for (const [i, replica] of replicas.entries()) {
            while (await replica.readPage(instances[(i % 2) as 0 | 1], token, 3));
            assert.deepEqual(byId(replica.notes.values()), byId(listing.notes), `replica ${i}`)
          }
        }),
        { numRuns: 25 },
      )
    })
  })
}
