// export and import of the trash and the history, on both stores: a round trip loses nothing (files, answers and kept
// bytes alike), a second import changes nothing, --user keeps to one account, bad records are reported and skipped.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ObjectId } from 'bson'
import { exportData } from '../src/transfer/export.js'
import { type Harness, startHarness } from './support/harness.js'
import {
  type TrashHistoryData,
  trashHistoryAnswers,
  trashHistoryBytes,
  makeTrashHistoryData,
} from './support/trash-history-data.js'
import { type StoreWithSql, openStoreWithSql } from './support/sql-stores.js'
import { SERVICE_LIMITS, storeKinds } from './support/stores.js'
import { type ExportedFiles, TempDir, exportAll, runImport } from './support/transfer.js'

type Doc = Record<string, unknown> & { _id: { $oid: string }; userId: string }
const docs = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Doc)
const lines = (records: unknown[]) => `${records.map((r) => JSON.stringify(r)).join('\n')}\n`
const counts = (phase: object | undefined) => ({ ...phase })
const without = (doc: Doc, field: string) => Object.fromEntries(Object.entries(doc).filter(([key]) => key !== field))

for (const kind of storeKinds()) {
  describe(`trash and history through export and import (${kind})`, () => {
    let source: StoreWithSql
    let h: Harness
    let data: TrashHistoryData
    let dir: TempDir
    let full: { files: ExportedFiles; texts: ExportedFiles }
    before(async () => {
      dir = new TempDir()
      source = await openStoreWithSql(kind, SERVICE_LIMITS)
      h = await startHarness('inject', { store: source.store })
      data = await makeTrashHistoryData(h.client)
      full = await exportAll(source.store, dir, 'source')
    })
    after(async () => {
      await h.close()
      await source.close()
      dir.remove()
    })

    for (const [mode, format] of [
      ['relaxed', 'lines'],
      ['canonical', 'array'],
    ] as const) {
      it(`round-trips (${mode}, ${format}): the same files, answers and kept bytes; a second import changes nothing`, async () => {
        const first = await exportAll(source.store, dir, `rt-a-${mode}`, { mode, format })
        const target = await openStoreWithSql(kind)
        try {
          const { summary, output } = await runImport(target.store, first.files)
          const imported = (n: number) => ({ read: n, imported: n, skipped: 0, rejected: 0, rejectedBy: {} })
          assert.deepEqual(
            [summary.users, summary.notes, summary.trash, summary.history].map(counts),
            [imported(2), imported(3), imported(3), imported(4)],
            output,
          )
          assert.deepEqual((await exportAll(target.store, dir, `rt-b-${mode}`, { mode, format })).texts, first.texts)
          assert.deepEqual(await trashHistoryAnswers(target.store, data), await trashHistoryAnswers(source.store, data))
          assert.deepEqual(
            await trashHistoryBytes((text) => target.sql(text)),
            await trashHistoryBytes((text) => source.sql(text)),
          )

          const again = await runImport(target.store, first.files)
          const skipped = (n: number) => ({ read: n, imported: 0, skipped: n, rejected: 0, rejectedBy: {} })
          assert.deepEqual(
            [again.summary.trash, again.summary.history].map(counts),
            [skipped(3), skipped(4)],
            again.output,
          )
          assert.deepEqual((await exportAll(target.store, dir, `rt-c-${mode}`, { mode, format })).texts, first.texts)
          assert.deepEqual(
            await trashHistoryBytes((text) => target.sql(text)),
            await trashHistoryBytes((text) => source.sql(text)),
          )
        } finally {
          await target.close()
        }
      })
    }

    it('--user exports only that account’s trash and history', async () => {
      const [ada] = data.accounts
      const trashOut = dir.file('ada-trash.json')
      const historyOut = dir.file('ada-history.json')
      const summary = await exportData({
        store: source.store,
        userEmail: ` ${ada!.email.toUpperCase()} `,
        trashOut,
        historyOut,
      })
      const adas = (text: string) => docs(text).filter((d) => d.userId === ada!.userId)
      assert.deepEqual(docs(dir.read('ada-trash.json')), adas(full.texts.trash))
      assert.deepEqual(docs(dir.read('ada-history.json')), adas(full.texts.history))
      assert.deepEqual(summary, { users: 0, notes: 0, trash: 2, revisions: 3, attachments: 0, attachmentsLeftOut: 0 })
    })

    it('reports malformed records, missing users and notes, and taken ids, by file and line, and imports the rest', async () => {
      const target = await openStoreWithSql(kind)
      try {
        await runImport(target.store, { users: full.files.users, notes: full.files.notes })
        const [trashed] = docs(full.texts.trash)
        const [live] = docs(full.texts.notes)
        const revisions = docs(full.texts.history)
        const ofTrashed = revisions.find((r) => r.noteId === trashed!._id.$oid)!
        const bobsNote = docs(full.texts.notes).find((n) => n.userId !== ofTrashed.userId)!
        const newId = () => ({ $oid: new ObjectId().toHexString() })
        const nobody = new ObjectId().toHexString()
        const orphan = newId()
        const trashText = lines([
          trashed,
          { ...without(trashed!, 'deletedOn'), _id: newId() },
          { ...trashed, _id: orphan, userId: nobody },
          { ...live, deletedOn: trashed!.deletedOn },
          { ...trashed, title: 'another title' },
          trashed,
        ])
        const history = [
          ofTrashed,
          { ...without(ofTrashed, 'editedOn'), _id: newId() },
          { ...ofTrashed, _id: newId(), noteId: nobody },
          { ...ofTrashed, _id: newId(), userId: nobody, editedOn: { $date: '2020-01-01T00:00:00.000Z' } },
          { ...ofTrashed, _id: newId(), noteId: bobsNote._id.$oid },
          { ...ofTrashed, _id: newId(), tags: 'a' },
          { ...ofTrashed, _id: newId() }, // another revision at the same version of the same note
        ]
        const { summary, output } = await runImport(target.store, {
          trash: dir.file('bad-trash.json', trashText),
          history: dir.file('bad-history.json', lines(history)),
        })
        assert.deepEqual(
          counts(summary.trash),
          {
            read: 6,
            imported: 1,
            skipped: 1,
            rejected: 4,
            rejectedBy: { malformed: 1, 'missing user': 1, 'conflicting _id': 2 },
          },
          output,
        )
        assert.deepEqual(
          counts(summary.history),
          {
            read: 7,
            imported: 1,
            skipped: 0,
            rejected: 6,
            rejectedBy: { malformed: 2, 'missing note': 2, 'missing user': 1, 'conflicting _id': 1 },
          },
          output,
        )
        const expected = [
          'bad-trash.json:2: malformed trashed note: deletedOn is missing',
          `bad-trash.json:3: trashed note ${orphan.$oid}: its user ${nobody} does not exist (not in the users file, or rejected)`,
          `bad-trash.json:4: trashed note ${live!._id.$oid}: a note with this _id is stored and not in the trash; this record is not imported`,
          `bad-trash.json:5: trashed note ${trashed!._id.$oid}: a different trashed note with this _id is already stored or earlier in the file (it differs in title); this record is not imported`,
          'bad-history.json:2: malformed revision: editedOn is missing',
          `bad-history.json:3: revision ${history[2]!._id.$oid}: user ${ofTrashed.userId} has no note ${nobody}, live or trashed (not in the notes or trash file, or rejected)`,
          `bad-history.json:4: revision ${history[3]!._id.$oid}: its user ${nobody} does not exist (not in the users file, or rejected)`,
          `bad-history.json:5: revision ${history[4]!._id.$oid}: user ${ofTrashed.userId} has no note ${bobsNote._id.$oid}, live or trashed`,
          'bad-history.json:6: malformed revision: tags is not an array of strings',
          `bad-history.json:7: revision ${history[6]!._id.$oid}: a different revision of note ${trashed!._id.$oid} with this _id or editedOn is already stored or earlier in the file (it differs in _id); this record is not imported`,
        ]
        for (const line of expected) assert.ok(output.includes(line), `${line}\nnot in\n${output}`)
        // A note is live or trashed, never both: a note whose _id is in the trash is refused too.
        const twin = await runImport(target.store, {
          notes: dir.file('twin-notes.json', lines([{ ...live, _id: trashed!._id, userId: trashed!.userId }])),
        })
        assert.deepEqual(
          counts(twin.summary.notes),
          { read: 1, imported: 0, skipped: 0, rejected: 1, rejectedBy: { 'conflicting _id': 1 } },
          twin.output,
        )
        assert.ok(
          twin.output.includes(
            `twin-notes.json:1: note ${trashed!._id.$oid}: a trashed note with this _id is already stored; this record is not imported`,
          ),
          twin.output,
        )
      } finally {
        await target.close()
      }
    })
  })
}
