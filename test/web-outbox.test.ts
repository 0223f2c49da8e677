// The web app's outbox (web/src/sync/outbox.ts), the pure part of working offline: a person
// changes notes on a device with no network while another device changes the same account; then
// the outbox is sent to a model of the API's If-Match rules (docs/history.md). Checked with
// fast-check: nothing the person typed is lost, nothing the other device wrote is overwritten or
// deleted, the outbox empties, and the device's replica ends equal to the server's listing.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import type { Note, NoteFields } from '../web/src/api.js'
import { compareNotes } from '../web/src/note-order.js'
import {
  type Answer,
  type Change,
  type Waiting,
  conflictTitle,
  enqueue,
  nextToSend,
  settle,
  view,
} from '../web/src/sync/outbox.js'

const USER = 'u'

/** The API as far as the outbox meets it: versions, If-Match, 412 with the note, 404 for a note not listed. */
class ModelServer {
  readonly notes = new Map<string, Note>()
  private clock = 0
  private ids = 0

  private stamp(): string {
    return new Date(Date.UTC(2030, 0, 1) + ++this.clock * 1000).toISOString()
  }

  add(fields: NoteFields): Note {
    const at = this.stamp()
    const note: Note = {
      _id: (++this.ids).toString(16).padStart(24, '0'),
      ...fields,
      isPinned: false,
      userId: USER,
      createdOn: at,
      updatedOn: at,
    }
    this.notes.set(note._id, note)
    return note
  }

  private write(id: string, base: string, change: (note: Note) => Note | undefined): Answer {
    const note = this.notes.get(id)
    if (!note) return { kind: 'gone' }
    if (note.updatedOn !== base) return { kind: 'conflict', theirs: note }
    const next = change(note)
    if (!next) {
      this.notes.delete(id)
      return { kind: 'deleted' }
    }
    const saved = { ...next, updatedOn: this.stamp() }
    this.notes.set(id, saved)
    return { kind: 'saved', note: saved }
  }

  answer(change: Change): Answer {
    switch (change.kind) {
      case 'add':
        return { kind: 'saved', note: this.add(change.fields) }
      case 'edit':
        return this.write(change.noteId, change.base, (n) => ({ ...n, ...change.fields }))
      case 'pin':
        return this.write(change.noteId, change.base, (n) => ({ ...n, isPinned: change.isPinned }))
      case 'delete':
        return this.write(change.noteId, change.base, () => undefined)
    }
  }

  /** Another device, online: its writes apply whatever the version. */
  otherEdit(id: string, content: string): void {
    const note = this.notes.get(id)
    if (note) this.notes.set(id, { ...note, content, updatedOn: this.stamp() })
  }

  otherDelete(id: string): void {
    this.notes.delete(id)
  }
}

type Step =
  | { who: 'me'; kind: 'add' | 'edit' | 'pin' | 'delete'; pick: number }
  | { who: 'other'; kind: 'edit' | 'delete'; pick: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    who: fc.constant('me' as const),
    kind: fc.constantFrom('add' as const, 'edit' as const, 'pin' as const, 'delete' as const),
    pick: fc.nat(20),
  }),
  fc.record({
    who: fc.constant('other' as const),
    kind: fc.constantFrom('edit' as const, 'delete' as const),
    pick: fc.nat(20),
  }),
)

/** One offline period: `steps` happen, then the device catches up with the server and sends its outbox. */
function run(initial: number, steps: Step[]) {
  const server = new ModelServer()
  for (let i = 0; i < initial; i++) server.add({ title: `note ${i}`, content: `first ${i}`, tags: [] })
  // The device's replica as it was when it went offline.
  let replica = new Map([...server.notes].map(([id, n]) => [id, n]))
  let outbox: Waiting[] = []
  let seq = 1
  let locals = 0
  let typed = 0
  const mine = (content: string) => content.startsWith('mine ')
  const othersWritten = new Set<string>()
  const madeOn = '2029-06-01T00:00:00.000Z'
  for (const s of steps) {
    if (s.who === 'other') {
      const ids = [...server.notes.keys()]
      const id = ids[s.pick % Math.max(ids.length, 1)]
      if (!id) continue
      // A text the other device overwrites or deletes itself is not the outbox's to keep.
      othersWritten.delete(server.notes.get(id)!.content)
      if (s.kind === 'edit') {
        const content = `theirs ${typed++}`
        server.otherEdit(id, content)
        othersWritten.add(content)
      } else {
        server.otherDelete(id)
      }
      continue
    }
    const shown = view(replica, outbox, USER)
    const note = shown[s.pick % Math.max(shown.length, 1)]
    let change: Change | undefined
    if (s.kind === 'add')
      change = {
        kind: 'add',
        noteId: `local-${locals++}`,
        fields: { title: `new ${typed}`, content: `mine ${typed++}`, tags: [] },
      }
    else if (!note) continue
    else if (s.kind === 'edit')
      change = {
        kind: 'edit',
        noteId: note._id,
        base: note.updatedOn,
        fields: { title: note.title, content: `mine ${typed++}`, tags: ['t'] },
      }
    else if (s.kind === 'pin')
      change = { kind: 'pin', noteId: note._id, base: note.updatedOn, isPinned: !note.isPinned }
    else change = { kind: 'delete', noteId: note._id, base: note.updatedOn }
    outbox = enqueue(outbox, change, seq++, madeOn)
  }
  // What the person sees before the network returns: every text of theirs in it must survive.
  const typedShown = view(replica, outbox, USER)
    .map((n) => n.content)
    .filter(mine)
  // Back online: the device catches up with the feed, then sends.
  replica = new Map(server.notes)
  const notices: string[] = []
  for (let rounds = 0; ; rounds++) {
    assert.ok(rounds < 1000, 'the outbox empties')
    const next = nextToSend(outbox)
    if (!next) break
    const settled = settle(outbox, next, server.answer(next.change), `local-${locals++}`)
    outbox = settled.outbox
    if (settled.put) replica.set(settled.put._id, settled.put)
    if (settled.drop) replica.delete(settled.drop)
    if (settled.notice) notices.push(settled.notice)
  }
  return { server, replica, outbox, typedShown, othersWritten, notices }
}

describe('the outbox', () => {
  it('loses nothing typed offline, overwrites nothing written elsewhere, and ends equal to the server (fast-check)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5 }), fc.array(step, { maxLength: 30 }), (initial, steps) => {
        const { server, replica, outbox, typedShown, othersWritten } = run(initial, steps)
        assert.deepEqual(outbox, [], 'everything was sent')
        const contents = [...server.notes.values()].map((n) => n.content)
        for (const text of typedShown) assert.ok(contents.includes(text), `the person's "${text}" is on the server`)
        for (const text of othersWritten)
          assert.ok(contents.includes(text), `the other device's "${text}" is still on the server`)
        assert.deepEqual(
          view(replica, [], USER),
          [...server.notes.values()].sort(compareNotes),
          "the replica is the server's listing",
        )
      }),
      { numRuns: 2000 },
    )
  })

  it('keeps an edit that met a newer version as a new note "<title> (conflict)", with the other text in place', () => {
    const { server, notices } = run(1, [
      { who: 'me', kind: 'edit', pick: 0 },
      { who: 'other', kind: 'edit', pick: 0 },
    ])
    const titles = [...server.notes.values()].map((n) => `${n.title}: ${n.content}`)
    assert.deepEqual(titles.sort(), [`${conflictTitle('note 0')}: mine 0`, 'note 0: theirs 1'])
    assert.deepEqual(notices, [])
  })

  it('adds an edit of a note deleted elsewhere back as a note of its own, and leaves a note changed elsewhere undeleted', () => {
    const gone = run(1, [
      { who: 'me', kind: 'edit', pick: 0 },
      { who: 'other', kind: 'delete', pick: 0 },
    ])
    assert.deepEqual(
      [...gone.server.notes.values()].map((n) => [n.title, n.content]),
      [['note 0', 'mine 0']],
    )
    const kept = run(1, [
      { who: 'me', kind: 'delete', pick: 0 },
      { who: 'other', kind: 'edit', pick: 0 },
    ])
    assert.deepEqual(
      [...kept.server.notes.values()].map((n) => n.content),
      ['theirs 0'],
    )
    assert.deepEqual(kept.notices, ['“note 0” was changed elsewhere, so it was not deleted.'])
  })

  it('coalesces what waits: two edits send the last text once, a pin and an edit each once, a note added and deleted offline sends nothing', () => {
    const edit = (content: string): Change => ({
      kind: 'edit',
      noteId: 'a',
      base: 'v1',
      fields: { title: 't', content, tags: [] },
    })
    let outbox = enqueue([], edit('one'), 1, 'x')
    outbox = enqueue(outbox, { kind: 'pin', noteId: 'a', base: 'v1', isPinned: true }, 2, 'x')
    outbox = enqueue(outbox, edit('two'), 3, 'x')
    assert.deepEqual(
      outbox.map((w) => w.change),
      [edit('two'), { kind: 'pin', noteId: 'a', base: 'v1', isPinned: true }],
    )
    // The edit on its way is not rewritten: the next one waits behind it.
    assert.equal(enqueue(outbox, edit('three'), 4, 'x', 1).length, 3)
    let local = enqueue([], { kind: 'add', noteId: 'local-1', fields: { title: 'n', content: 'c', tags: [] } }, 1, 'x')
    local = enqueue(
      local,
      { kind: 'edit', noteId: 'local-1', base: 'x', fields: { title: 'n', content: 'c2', tags: [] } },
      2,
      'x',
    )
    assert.equal(local.length, 1)
    assert.deepEqual(enqueue(local, { kind: 'delete', noteId: 'local-1', base: 'x' }, 3, 'x'), [])
  })

  it('keeps a change the server refuses, skips it, and sends it again once the note is edited', () => {
    const add: Change = { kind: 'add', noteId: 'local-1', fields: { title: 'n', content: 'too long', tags: [] } }
    let outbox = enqueue([], add, 1, 'x')
    outbox = settle(outbox, outbox[0]!, { kind: 'refused', message: 'Note too large' }, 'local-2').outbox
    assert.equal(outbox[0]!.refused, 'Note too large')
    assert.equal(nextToSend(outbox), undefined)
    outbox = enqueue(
      outbox,
      { kind: 'edit', noteId: 'local-1', base: 'x', fields: { title: 'n', content: 'shorter', tags: [] } },
      2,
      'x',
    )
    assert.deepEqual(nextToSend(outbox)?.change, { ...add, fields: { title: 'n', content: 'shorter', tags: [] } })
  })

  it('holds an edit whose conflict the open editor shows, and sends the rest', () => {
    const server = new ModelServer()
    const a = server.add({ title: 'a', content: 'a', tags: [] })
    const b = server.add({ title: 'b', content: 'b', tags: [] })
    let outbox = enqueue(
      [],
      { kind: 'edit', noteId: a._id, base: a.updatedOn, fields: { title: 'a', content: 'mine', tags: [] } },
      1,
      'x',
    )
    outbox = enqueue(outbox, { kind: 'pin', noteId: b._id, base: b.updatedOn, isPinned: true }, 2, 'x')
    server.otherEdit(a._id, 'theirs')
    const first = nextToSend(outbox)!
    outbox = settle(outbox, first, server.answer(first.change), 'local-9', true).outbox
    assert.equal(outbox[0]!.held, true)
    assert.equal(nextToSend(outbox)?.seq, 2)
  })
})
