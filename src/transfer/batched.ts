// The phases written in batches without hashing: notes, trashed notes and revisions, each record's outcome counted or
// reported by the same rules.
import type {
  NoteImportOutcome,
  NoteRecord,
  RevisionImportOutcome,
  StoredRevisionRecord,
  TrashImportOutcome,
  TrashedNoteRecord,
  TransferStore,
} from '../store/types.js'
import type { RawRecord } from './json-splitter.js'
import { type ImportOptions, type PhaseSummary, conflictMessage, openPhase } from './phase.js'
import { noteFromDocument, revisionFromDocument, trashedNoteFromDocument } from './records.js'

type BatchedOutcome = NoteImportOutcome | TrashImportOutcome | RevisionImportOutcome
type BatchedRecord = { _id: string; userId: string; noteId?: string }

/** A kind of record written in batches without hashing: notes, trashed notes, revisions. */
interface BatchedKind<R extends BatchedRecord> {
  phase: string
  noun: string
  fromDocument: (value: unknown) => R
  write: (store: TransferStore, records: R[]) => Promise<BatchedOutcome[]>
}

export const NOTES: BatchedKind<NoteRecord> = {
  phase: 'notes',
  noun: 'note',
  fromDocument: noteFromDocument,
  write: (store, r) => store.importNotes(r),
}
export const TRASH: BatchedKind<TrashedNoteRecord> = {
  phase: 'trash',
  noun: 'trashed note',
  fromDocument: trashedNoteFromDocument,
  write: (store, r) => store.importTrash(r),
}
export const HISTORY: BatchedKind<StoredRevisionRecord> = {
  phase: 'history',
  noun: 'revision',
  fromDocument: revisionFromDocument,
  write: (store, r) => store.importRevisions(r),
}

/** Why a record the store neither inserted nor found stored as it is was rejected: [cause, message]. */
function refusal(
  noun: string,
  record: BatchedRecord,
  outcome: Exclude<BatchedOutcome, 'inserted' | 'exists'>,
): [string, string] {
  const what = `${noun} ${record._id}`
  if (outcome === 'missing-user')
    return ['missing user', `${what}: its user ${record.userId} does not exist (not in the users file, or rejected)`]
  if (outcome === 'missing-note')
    return [
      'missing note',
      `${what}: user ${record.userId} has no note ${record.noteId}, live or trashed (not in the notes or trash file, or rejected)`,
    ]
  // A note is live or trashed, never both: the import keeps the state it found first.
  if (outcome === 'in-trash')
    return ['conflicting _id', `${what}: a trashed note with this _id is already stored; this record is not imported`]
  if (outcome === 'live')
    return [
      'conflicting _id',
      `${what}: a note with this _id is stored and not in the trash; this record is not imported`,
    ]
  // A revision is looked up within its note (TransferStore.importRevisions).
  const key = record.noteId === undefined ? undefined : `of note ${record.noteId} with this _id or editedOn`
  return ['conflicting _id', conflictMessage(noun, record._id, outcome.differs, key)]
}

export async function importBatched<R extends BatchedRecord>(
  kind: BatchedKind<R>,
  file: string,
  options: ImportOptions,
): Promise<PhaseSummary> {
  const { store, progress } = options
  const { parsed, counts, reject } = await openPhase(kind.phase, kind.noun, file, options)
  let batch: { raw: RawRecord; record: R }[] = []

  const flush = async () => {
    const written = batch
    batch = []
    const outcomes = await kind.write(
      store,
      written.map((w) => w.record),
    )
    outcomes.forEach((outcome, i) => {
      const { raw, record } = written[i]!
      if (outcome === 'inserted') counts.imported++
      else if (outcome === 'exists') counts.skipped++
      else reject(raw, ...refusal(kind.noun, record, outcome))
    })
  }

  for await (const [raw, record] of parsed(kind.fromDocument, flush)) {
    batch.push({ raw: { line: raw.line, index: raw.index }, record }) // not the text: the batch stays small
    if (batch.length >= (options.batchSize ?? 2000)) await flush()
  }
  await flush()
  progress.end(counts)
  return counts
}
