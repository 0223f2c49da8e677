// The trash, the revision history and If-Match against a model (test/support/history-model.ts): random sequences of
// add, edit, pin, delete, restore, restore-revision, delete-forever and empty-trash through the HTTP API, on every
// store with its caches on and off. After each step the listing and the trash are the model's, each history is the
// model's, and every text the person was shown of a note that is kept (live or in the trash) can be had again: it is
// the note's text or one of its revisions. A note deleted forever answers 404 for its history.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { defaultConfig } from '../src/config.js'
import type { NoteRecord, RevisionRecord, TrashedNoteRecord } from '../src/note-shape.js'
import { type Account, type Harness, type Reply, register, startHarness } from './support/harness.js'
import {
  type EditBody,
  HistoryModel,
  type ModelNote,
  type ModelRevision,
  appliedEdit,
  sameText,
} from './support/history-model.js'
import { SERVICE_LIMITS, openTestStore, storeKinds } from './support/stores.js'

/** The history is whole only while a note has had fewer revisions than this; sequences stay well under it. */
const HISTORY_REVISIONS = defaultConfig.retention.historyRevisions
const MAX_STEPS = 40
const MISSING_ID = '0123456789abcdef01234567'
/** A version no note ever had: the stale If-Match of a note that has had one version only. */
const NEVER = '"2000-01-01T00:00:00.000Z"'

type IfMatch = 'none' | 'current' | 'stale'
type Op =
  | { kind: 'add'; title: string; content: string; tags: string[] | undefined }
  | { kind: 'edit'; pick: number; body: EditBody; ifMatch: IfMatch }
  | { kind: 'pin'; pick: number; isPinned: boolean; ifMatch: IfMatch }
  | { kind: 'delete'; pick: number; ifMatch: IfMatch }
  | { kind: 'restore-note'; pick: number }
  | { kind: 'restore-revision'; pick: number; revision: number; ifMatch: IfMatch }
  | { kind: 'delete-forever'; pick: number }
  | { kind: 'empty-trash' }

// Few distinct values, so that edits often repeat a text, restore the current one, or come back to an earlier one.
const word = fc.constantFrom('alpha', 'beta', 'gamma', 'Ωmega 日本', 'emoji 😀')
const tags = fc.array(fc.constantFrom('x', 'y', 'z'), { maxLength: 2 })
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined })
/** Which note an operation targets (Run.target): erased ones included now and then, so that 404s are exercised too. */
const pick = fc.nat({ max: 99 })
const ifMatch = fc.constantFrom<IfMatch>('none', 'current', 'stale')

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('add' as const), title: word, content: word, tags: maybe(tags) }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('edit' as const),
      pick,
      // '' is falsy and left alone; [] is truthy and clears the tags.
      body: fc.record({
        title: maybe(fc.oneof(fc.constant(''), word)),
        content: maybe(fc.oneof(fc.constant(''), word)),
        tags: maybe(tags),
        isPinned: maybe(fc.boolean()),
      }),
      ifMatch,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pin' as const), pick, isPinned: fc.boolean(), ifMatch }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick, ifMatch }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('restore-note' as const), pick }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('restore-revision' as const),
      pick,
      revision: fc.nat({ max: 99 }),
      ifMatch,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete-forever' as const), pick }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'empty-trash' as const }) },
)
const ops = fc.array(op, { minLength: 1, maxLength: MAX_STEPS, size: 'max' })

const laterThan = (note: NoteRecord, before: NoteRecord) =>
  assert.ok(
    Date.parse(note.updatedOn) > Date.parse(before.updatedOn),
    `updatedOn ${note.updatedOn} is not after ${before.updatedOn}`,
  )
/** The note but its version, which the server picks. */
const unversioned = (note: NoteRecord) => ({ ...note, updatedOn: '' })
const revisionState = ({ title, content, tags, isPinned, editedOn }: RevisionRecord): ModelRevision => ({
  title,
  content,
  tags,
  isPinned,
  editedOn,
})
function withoutDeletedOn(trashed: TrashedNoteRecord): NoteRecord {
  const note: Partial<TrashedNoteRecord> = { ...trashed }
  delete note.deletedOn
  return note as NoteRecord
}

function expectNote(res: Reply, message: string): NoteRecord {
  assert.equal(res.status, 200, res.text)
  const body = res.json as { error: boolean; note: NoteRecord; message: string }
  assert.deepEqual([body.error, body.message], [false, message])
  assert.equal(res.headers.etag, `"${body.note.updatedOn}"`)
  return body.note
}

function expectError(res: Reply, status: number, message: string, more: Record<string, unknown> = {}): void {
  assert.deepEqual([res.status, res.json], [status, { error: true, message, ...more }])
}

/** One run: a fresh account, the model of its notes, and what was sent, to read when a check fails. */
class Run {
  readonly model = new HistoryModel()
  readonly trace: string[] = []
  /** Each revision's _id by note and editedOn: a revision keeps its id from one history answer to the next. */
  private readonly revisionIds = new Map<string, string>()

  constructor(
    private readonly h: Harness,
    private readonly account: Account,
  ) {}

  private send(method: string, path: string, body?: unknown, ifMatch?: string): Promise<Reply> {
    return this.h.client.request(method, path, {
      token: this.account.token,
      ...(body === undefined ? {} : { body }),
      ...(ifMatch === undefined ? {} : { headers: { 'if-match': ifMatch } }),
    })
  }

  /** A request of a step, written to the trace with the note's number in the run instead of its id. */
  private async act(method: string, path: string, body?: unknown, ifMatch?: string): Promise<Reply> {
    const res = await this.send(method, path, body, ifMatch)
    let shown = path
    this.model.notes.forEach((m, i) => (shown = shown.replaceAll(m.note._id, `#${i}`)))
    const sent = [
      method,
      shown,
      body === undefined ? '' : JSON.stringify(body),
      ifMatch === undefined ? '' : `If-Match: ${ifMatch}`,
    ]
    this.trace.push(`${sent.filter(Boolean).join(' ')} -> ${res.status}`)
    return res
  }

  /**
   * Mostly a note where the operation applies (in the trash for restore-note and delete-forever, live for the rest), so
   * that most steps change something; one pick in ten, or when there is none, any note of the run, erased ones included.
   */
  private target(o: Op & { pick: number }): ModelNote | undefined {
    const where = o.kind === 'restore-note' || o.kind === 'delete-forever' ? 'trash' : 'live'
    const fitting = this.model.notes.filter((m) => m.place === where)
    const notes = fitting.length === 0 || o.pick % 10 === 9 ? this.model.notes : fitting
    return notes[o.pick % Math.max(1, notes.length)]
  }

  private ifMatchOf(m: ModelNote, how: IfMatch): string | undefined {
    if (how === 'none') return undefined
    if (how === 'current') return `"${m.note.updatedOn}"`
    const stale = m.versions.filter((v) => v !== m.note.updatedOn).at(-1)
    return stale === undefined ? NEVER : `"${stale}"`
  }

  private async history(m: ModelNote): Promise<Reply> {
    return this.send('GET', `/get-note-history/${m.note._id}`)
  }

  async step(o: Op): Promise<void> {
    if (o.kind === 'add') return this.add(o.title, o.content, o.tags)
    if (o.kind === 'empty-trash') {
      const trash = this.model.trash()
      const res = await this.act('DELETE', '/empty-trash')
      assert.deepEqual([res.status, res.json], [200, { error: false, deleted: trash.length, message: 'Trash emptied' }])
      for (const m of trash) this.model.erased(m)
      return
    }
    const m = this.target(o)
    if (!m) return
    const id = m.note._id
    switch (o.kind) {
      case 'edit': {
        const header = this.ifMatchOf(m, o.ifMatch)
        const res = await this.act('PUT', `/edit-note/${id}`, o.body, header)
        return this.write(
          m,
          res,
          o.ifMatch,
          { ...m.note, ...appliedEdit(o.body) },
          Object.keys(appliedEdit(o.body)).length > 0,
        )
      }
      case 'pin': {
        const res = await this.act(
          'PUT',
          `/update-note-pinned/${id}`,
          { isPinned: o.isPinned },
          this.ifMatchOf(m, o.ifMatch),
        )
        return this.write(m, res, o.ifMatch, { ...m.note, isPinned: o.isPinned }, true)
      }
      case 'delete': {
        const res = await this.act('DELETE', `/delete-note/${id}`, undefined, this.ifMatchOf(m, o.ifMatch))
        if (m.place !== 'live') return expectError(res, 404, 'Note not found')
        if (o.ifMatch === 'stale') return this.refused(m, res)
        assert.deepEqual(expectNote(res, 'Note deleted successfully'), m.note)
        return this.model.deleted(m)
      }
      case 'restore-note': {
        const res = await this.act('PUT', `/restore-note/${id}`)
        if (m.place !== 'trash') return expectError(res, 404, 'Note not found')
        const note = expectNote(res, 'Note restored successfully')
        assert.deepEqual(unversioned(note), unversioned(m.note))
        laterThan(note, m.note)
        return this.model.restored(m, note)
      }
      case 'restore-revision': {
        const revisions =
          m.place === 'erased' ? [] : ((await this.history(m)).json as { revisions: RevisionRecord[] }).revisions
        const revision = revisions[o.revision % Math.max(1, revisions.length)]
        const res = await this.act(
          'PUT',
          `/restore-revision/${id}/${revision?._id ?? MISSING_ID}`,
          undefined,
          this.ifMatchOf(m, o.ifMatch),
        )
        if (m.place === 'erased') return expectError(res, 404, 'Note not found')
        if (!revision) return expectError(res, 404, 'Revision not found')
        const { title, content, tags } = revision
        return this.write(m, res, o.ifMatch, { ...m.note, title, content, tags }, true)
      }
      case 'delete-forever': {
        const res = await this.act('DELETE', `/delete-note-forever/${id}`)
        if (m.place !== 'trash') return expectError(res, 404, 'Note not found')
        assert.deepEqual([res.status, res.json], [200, { error: false, message: 'Note deleted forever' }])
        return this.model.erased(m)
      }
    }
  }

  private async add(title: string, content: string, tags: string[] | undefined): Promise<void> {
    const res = await this.act('POST', '/add-note', { title, content, ...(tags === undefined ? {} : { tags }) })
    const note = expectNote(res, 'Note added successfully')
    assert.deepEqual(
      { ...note, _id: '', createdOn: '', updatedOn: '' },
      {
        _id: '',
        title,
        content,
        tags: tags ?? [],
        isPinned: false,
        userId: this.account.userId,
        createdOn: '',
        updatedOn: '',
      },
    )
    assert.equal(note.createdOn, note.updatedOn)
    this.model.added(note)
  }

  /** The answer of edit, pin or restore-revision: 404 off the listing, 412 on a stale version, else `expected`. */
  private write(m: ModelNote, res: Reply, ifMatch: IfMatch, expected: NoteRecord, applies: boolean): void {
    if (m.place !== 'live') return expectError(res, 404, 'Note not found')
    if (ifMatch === 'stale') return this.refused(m, res)
    const note = expectNote(res, 'Note updated successfully')
    if (!applies) {
      // Nothing to apply: the note as it is, its version kept.
      assert.deepEqual(note, m.note)
      return this.model.shown(m, note)
    }
    assert.deepEqual(unversioned(note), unversioned(expected))
    laterThan(note, m.note)
    this.model.changed(m, note)
  }

  /** A stale If-Match: 412 with the note as it is, and nothing changes. */
  private refused(m: ModelNote, res: Reply): void {
    expectError(res, 412, 'Note was changed elsewhere', { note: m.note })
    this.model.shown(m, m.note)
  }

  /** What must hold after every step. */
  async check(): Promise<void> {
    const listing = await this.send('GET', '/get-all-notes')
    assert.equal(listing.status, 200, listing.text)
    assert.deepEqual(
      (listing.json as { notes: NoteRecord[] }).notes,
      this.model.listing(),
      'the listing is the live notes of the model, in list order',
    )

    const trashAnswer = await this.send('GET', '/get-trash')
    assert.equal(trashAnswer.status, 200, trashAnswer.text)
    const trash = (trashAnswer.json as { notes: TrashedNoteRecord[] }).notes
    assert.deepEqual(
      trash.map(withoutDeletedOn),
      this.model.trash().map((m) => m.note),
      "the trash is the model's, most recently deleted first",
    )
    trash.forEach((t, i) => {
      assert.ok(t.deletedOn >= t.updatedOn, `deletedOn ${t.deletedOn} before updatedOn ${t.updatedOn}`)
      if (i > 0)
        assert.ok(
          t.deletedOn <= (trash[i - 1] as TrashedNoteRecord).deletedOn,
          'the trash is listed by deletedOn, latest first',
        )
    })

    for (const [i, m] of this.model.notes.entries()) {
      const res = await this.history(m)
      if (m.place === 'erased') {
        expectError(res, 404, 'Note not found')
        continue
      }
      assert.equal(res.status, 200, res.text)
      const revisions = (res.json as { revisions: RevisionRecord[] }).revisions
      if (m.revisions < HISTORY_REVISIONS) {
        for (const text of m.seen) {
          assert.ok(
            sameText(text, m.note) || revisions.some((r) => sameText(r, text)),
            `note #${i} (${m.place}) showed ${JSON.stringify(text)}, which is neither its text ${JSON.stringify(m.note)} nor among its revisions ${JSON.stringify(revisions)}`,
          )
        }
      }
      assert.deepEqual(
        revisions.map(revisionState),
        m.history.slice(0, HISTORY_REVISIONS),
        `the history of note #${i} (${m.place}), newest first`,
      )
      assert.equal(new Set(revisions.map((r) => r._id)).size, revisions.length, 'revision ids are distinct')
      for (const r of revisions) {
        assert.match(r._id, /^[0-9a-f]{24}$/)
        const key = `${m.note._id}/${r.editedOn}`
        assert.equal(this.revisionIds.get(key) ?? r._id, r._id, `revision ${key} kept its id`)
        this.revisionIds.set(key, r._id)
      }
    }
  }
}

for (const storeKind of storeKinds()) {
  for (const caches of [true, false]) {
    describe(`trash and history against a model (${storeKind}, caches ${caches ? 'on' : 'off'})`, () => {
      let h: Harness
      before(async () => {
        h = await startHarness('inject', { store: await openTestStore(storeKind, caches, SERVICE_LIMITS) })
      })
      after(async () => h.close())

      it('keeps listing, trash and history as the model says, and every text shown of a kept note reachable', async () => {
        await fc.assert(
          fc.asyncProperty(ops, async (steps) => {
            const run = new Run(h, await register(h.client))
            try {
              for (const step of steps) {
                await run.step(step)
                await run.check()
              }
            } catch (err) {
              // The steps as sent, with each note's number in the run: the counterexample in the server's terms.
              throw new Error(
                `${err instanceof Error ? err.message : String(err)}\nsteps sent:\n  ${run.trace.join('\n  ')}`,
                { cause: err },
              )
            }
          }),
          { numRuns: 25, includeErrorInReport: true },
        )
      })
    })
  }
}
