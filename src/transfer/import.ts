// notes-service import: mongoexport files in, ids kept, plain-text passwords hashed, written through the
// store's idempotent bulk methods. Reading waits on the window of hashes and the batch: memory stays flat.
import { defaultPasswordHasher, isArgon2idHash } from '../services/passwords.js'
import type {
  NoteImportOutcome,
  NoteRecord,
  RevisionImportOutcome,
  Store,
  StoredRevisionRecord,
  TrashImportOutcome,
  TrashedNoteRecord,
  UserRecord,
} from '../store/types.js'
import type { RawRecord } from './json-splitter.js'
import { type Progress, zeroCounts } from './progress.js'
import { type IncomingUser, RecordError, noteFromDocument, parseEjson, revisionFromDocument, trashedNoteFromDocument, userFromDocument } from './records.js'
import { openSource } from './source.js'

export interface ImportOptions {
  store: Store
  usersFile?: string
  notesFile?: string
  /** notes-service's own trash and history exports (docs/migration.md), after the notes they belong with. */
  trashFile?: string
  historyFile?: string
  /** Stop at the first rejected record instead of reporting it and going on. */
  strict?: boolean
  /** Users looked up and hashed at once: keep it above the thread pool's size. */
  hashConcurrency: number
  progress: Progress
  /** Records written per store transaction. */
  batchSize?: number
}

/** --strict met a rejected record; the message says where and why. */
export class StrictStop extends Error {
  override name = 'StrictStop'
}

/** rejectedBy: by cause, 'malformed', 'duplicate email', 'missing user', 'missing note' or 'conflicting _id'. */
const emptyPhase = () => ({ ...zeroCounts(), rejectedBy: {} as Record<string, number> })
type PhaseSummary = ReturnType<typeof emptyPhase>
export type ImportSummary = Awaited<ReturnType<typeof importData>>

/** `noun`: what one record is, in messages ('user', 'trashed note'). */
async function openPhase(name: string, noun: string, file: string, options: ImportOptions) {
  const source = await openSource(file)
  const counts = emptyPhase()
  options.progress.begin(name, source.totalBytes, source.bytesRead)
  const reject = (raw: RawRecord, cause: string, message: string) => {
    counts.rejected++
    counts.rejectedBy[cause] = (counts.rejectedBy[cause] ?? 0) + 1
    const line = `${file}:${raw.line}${source.format === 'lines' ? '' : ` (record ${raw.index + 1})`}: ${message}`
    options.progress.note(line)
    if (options.strict) throw new StrictStop(line)
  }
  /** A malformed record is rejected; under --strict `settle` first writes what came before it. Ticks after each record. */
  async function* parsed<T>(fromDocument: (value: unknown) => T, settle: () => Promise<void>): AsyncGenerator<[RawRecord, T]> {
    for await (const raw of source.records()) {
      counts.read++
      let value: T
      try {
        if (raw.error !== undefined || raw.text === undefined) throw new RecordError(raw.error ?? 'empty record')
        value = fromDocument(parseEjson(raw.text))
      } catch (err) {
        if (!(err instanceof RecordError)) throw err
        if (options.strict) await settle()
        reject(raw, 'malformed', `malformed ${noun}: ${err.message}`)
        continue
      }
      yield [raw, value]
      options.progress.tick(counts)
    }
  }
  return { parsed, counts, reject }
}

/** 'stored': the _id is taken, by a user differing in `fields` (none: the same one). */
type Prepared =
  | { kind: 'ready'; user: UserRecord }
  | { kind: 'stored'; fields: string[] }
  | { kind: 'duplicate' }
  | { kind: 'failed'; error: unknown }

/** A plain-text password is not compared: that costs an argon2 verification per user per run. */
function userDifferences(stored: UserRecord, incoming: IncomingUser): string[] {
  const fields = (['fullName', 'email', 'createdOn'] as const).filter((field) => stored[field] !== incoming[field]) as string[]
  if (isArgon2idHash(incoming.password) && incoming.password !== stored.passwordHash) fields.push('password')
  return fields
}

/** Import never overwrites, so a record whose _id is taken by a different one is named, not dropped quietly. */
const conflictMessage = (kind: string, id: string, fields: readonly string[], key = 'with this _id') =>
  `${kind} ${id}: a different ${kind} ${key} is already stored or earlier in the file ` +
  `(it differs in ${fields.join(', ')}); this record is not imported`

const duplicateMessage = (user: { _id: string; email: string }) =>
  `duplicate email "${user.email}": another user already has it (compared as logins are: trimmed, NFKC, case-insensitively); user ${user._id} not imported`

/** Looks the user up before hashing, so a second run costs no argon2 work; never rejects. */
async function prepareUser(store: Store, incoming: IncomingUser): Promise<Prepared> {
  try {
    const stored = await store.findUserById(incoming._id)
    if (stored) return { kind: 'stored', fields: userDifferences(stored, incoming) }
    if (await store.findUserByEmailKey(incoming.emailKey)) return { kind: 'duplicate' }
    const { password, ...rest } = incoming
    const passwordHash = isArgon2idHash(password) ? password : await defaultPasswordHasher.hash(password)
    return { kind: 'ready', user: { ...rest, passwordHash } }
  } catch (error) {
    return { kind: 'failed', error }
  }
}

async function importUsers(file: string, options: ImportOptions): Promise<PhaseSummary> {
  const { store, progress } = options
  const { parsed, counts, reject } = await openPhase('users', 'user', file, options)
  const window: { raw: RawRecord; incoming: IncomingUser; prepared: Promise<Prepared> }[] = []
  let batch: { raw: RawRecord; incoming: IncomingUser; user: UserRecord }[] = []
  const alreadyStored = (raw: RawRecord, id: string, fields: readonly string[]) => {
    if (fields.length === 0) counts.skipped++
    else reject(raw, 'conflicting _id', conflictMessage('user', id, fields))
  }

  const flush = async () => {
    const written = batch
    batch = []
    const outcomes = await store.importUsers(written.map((w) => w.user))
    for (const [i, outcome] of outcomes.entries()) {
      const { raw, incoming, user } = written[i]!
      if (outcome === 'inserted') counts.imported++
      else if (outcome === 'duplicate-email') reject(raw, 'duplicate email', duplicateMessage(user))
      else {
        // Stored after this record was looked up: earlier in the file, or by someone else.
        const stored = await store.findUserById(user._id)
        alreadyStored(raw, user._id, stored ? userDifferences(stored, incoming) : [])
      }
    }
  }
  const settleOldest = async () => {
    const { raw, incoming, prepared } = window.shift()!
    const result = await prepared
    if (result.kind === 'failed') throw result.error
    if (result.kind === 'stored') alreadyStored(raw, incoming._id, result.fields)
    else if (result.kind === 'duplicate') reject(raw, 'duplicate email', duplicateMessage(incoming))
    else {
      batch.push({ raw, incoming, user: result.user })
      if (batch.length >= (options.batchSize ?? 500)) await flush()
    }
  }
  const settleAll = async () => {
    while (window.length) await settleOldest()
    await flush()
  }

  for await (const [raw, incoming] of parsed(userFromDocument, settleAll)) {
    window.push({ raw, incoming, prepared: prepareUser(store, incoming) })
    if (window.length >= options.hashConcurrency) await settleOldest()
  }
  await settleAll()
  progress.end(counts)
  return counts
}

type BatchedOutcome = NoteImportOutcome | TrashImportOutcome | RevisionImportOutcome
type BatchedRecord = { _id: string; userId: string; noteId?: string }

/** A kind of record written in batches without hashing: notes, trashed notes, revisions. */
interface BatchedKind<R extends BatchedRecord> {
  phase: string
  noun: string
  fromDocument: (value: unknown) => R
  write: (store: Store, records: R[]) => Promise<BatchedOutcome[]>
}

const NOTES: BatchedKind<NoteRecord> = { phase: 'notes', noun: 'note', fromDocument: noteFromDocument, write: (store, r) => store.importNotes(r) }
const TRASH: BatchedKind<TrashedNoteRecord> = { phase: 'trash', noun: 'trashed note', fromDocument: trashedNoteFromDocument, write: (store, r) => store.importTrash(r) }
const HISTORY: BatchedKind<StoredRevisionRecord> = { phase: 'history', noun: 'revision', fromDocument: revisionFromDocument, write: (store, r) => store.importRevisions(r) }

/** Why a record the store neither inserted nor found stored as it is was rejected: [cause, message]. */
function refusal(noun: string, record: BatchedRecord, outcome: Exclude<BatchedOutcome, 'inserted' | 'exists'>): [string, string] {
  const what = `${noun} ${record._id}`
  if (outcome === 'missing-user') return ['missing user', `${what}: its user ${record.userId} does not exist (not in the users file, or rejected)`]
  if (outcome === 'missing-note') return ['missing note', `${what}: user ${record.userId} has no note ${record.noteId}, live or trashed (not in the notes or trash file, or rejected)`]
  // A note is live or trashed, never both: the import keeps the state it found first.
  if (outcome === 'in-trash') return ['conflicting _id', `${what}: a trashed note with this _id is already stored; this record is not imported`]
  if (outcome === 'live') return ['conflicting _id', `${what}: a note with this _id is stored and not in the trash; this record is not imported`]
  // A revision is looked up within its note (Store.importRevisions).
  const key = record.noteId === undefined ? undefined : `of note ${record.noteId} with this _id or editedOn`
  return ['conflicting _id', conflictMessage(noun, record._id, outcome.differs, key)]
}

async function importBatched<R extends BatchedRecord>(kind: BatchedKind<R>, file: string, options: ImportOptions): Promise<PhaseSummary> {
  const { store, progress } = options
  const { parsed, counts, reject } = await openPhase(kind.phase, kind.noun, file, options)
  let batch: { raw: RawRecord; record: R }[] = []

  const flush = async () => {
    const written = batch
    batch = []
    const outcomes = await kind.write(store, written.map((w) => w.record))
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

/**
 * Users first, so that notes find their owners; then the trash, which checks that no live note has its ids; then the
 * history, whose notes are live or trashed by then. The trash and the history are summarised only when their file is
 * given, so an import of the original's two collections reports what it always has.
 */
export async function importData(options: ImportOptions) {
  const started = performance.now()
  const users = options.usersFile ? await importUsers(options.usersFile, options) : emptyPhase()
  const notes = options.notesFile ? await importBatched(NOTES, options.notesFile, options) : emptyPhase()
  const trash = options.trashFile ? await importBatched(TRASH, options.trashFile, options) : undefined
  const history = options.historyFile ? await importBatched(HISTORY, options.historyFile, options) : undefined
  return { users, notes, ...(trash ? { trash } : {}), ...(history ? { history } : {}), seconds: (performance.now() - started) / 1000 }
}

/** The phases that ran or always report, in order, by name. */
export const phasesOf = (summary: ImportSummary): [string, PhaseSummary][] =>
  (['users', 'notes', 'trash', 'history'] as const).flatMap((name) => (summary[name] ? [[name, summary[name]] as [string, PhaseSummary]] : []))

function describePhase(name: string, phase: PhaseSummary): string {
  const causes = Object.entries(phase.rejectedBy).map(([cause, n]) => `${n} ${cause}`)
  return `${name}: ${phase.imported} imported, ${phase.skipped} skipped (already present), ${phase.rejected} rejected${causes.length ? ` (${causes.join(', ')})` : ''}`
}

export function describeSummary(summary: ImportSummary): string {
  const phases = phasesOf(summary)
  const records = phases.reduce((sum, [, phase]) => sum + phase.read, 0)
  const rate = Math.round(records / Math.max(summary.seconds, 0.001))
  return [`import finished in ${summary.seconds.toFixed(1)} s (${records} records, ${rate}/s)`, ...phases.map(([name, phase]) => describePhase(name, phase))].join('\n')
}
