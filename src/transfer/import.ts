// notes-service import: reads the original service's mongoexport files (users first, then notes),
// keeps every id, hashes plain-text passwords with argon2id, and writes through the store's
// idempotent bulk methods. Reading pauses while the bounded window of hashes and the current
// batch are busy, so memory stays flat however large the files are.
import { defaultPasswordHasher, isArgon2idHash } from '../services/passwords.js'
import type { NoteRecord, Store, UserRecord } from '../store/types.js'
import type { RawRecord } from './json-splitter.js'
import { type Counts, type Progress, zeroCounts } from './progress.js'
import { type IncomingUser, RecordError, noteFromDocument, parseEjson, userFromDocument } from './records.js'
import { openSource } from './source.js'

export interface ImportOptions {
  store: Store
  usersFile?: string
  notesFile?: string
  /** Stop at the first rejected record instead of reporting it and going on. */
  strict?: boolean
  /** Users being prepared (looked up and hashed) at once: keep it above the thread pool's size. */
  hashConcurrency: number
  progress: Progress
  /** Records written per store transaction. */
  batchSize?: number
}

export interface PhaseSummary extends Counts {
  /** Rejections by cause: 'malformed', 'duplicate email', 'missing user', 'conflicting _id'. */
  rejectedBy: Record<string, number>
}

export interface ImportSummary {
  users: PhaseSummary
  notes: PhaseSummary
  seconds: number
}

/** --strict met a rejected record; the message says where and why. */
export class StrictStop extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'StrictStop'
  }
}

const emptyPhase = (): PhaseSummary => ({ ...zeroCounts(), rejectedBy: {} })

class Phase {
  readonly summary = emptyPhase()
  constructor(
    private readonly file: string,
    private readonly format: string,
    private readonly options: ImportOptions,
  ) {}

  where(raw: RawRecord): string {
    return `${this.file}:${raw.line}${this.format === 'lines' ? '' : ` (record ${raw.index + 1})`}`
  }

  reject(raw: RawRecord, cause: string, message: string): void {
    this.summary.rejected++
    this.summary.rejectedBy[cause] = (this.summary.rejectedBy[cause] ?? 0) + 1
    const line = `${this.where(raw)}: ${message}`
    this.options.progress.note(line)
    if (this.options.strict) throw new StrictStop(line)
  }
}

function parse<T>(raw: RawRecord, fromDocument: (value: unknown) => T): T {
  if (raw.error !== undefined || raw.text === undefined) throw new RecordError(raw.error ?? 'empty record')
  return fromDocument(parseEjson(raw.text))
}

type Prepared =
  | { kind: 'ready'; user: UserRecord }
  | { kind: 'exists' }
  | { kind: 'differs'; fields: string[] }
  | { kind: 'duplicate' }
  | { kind: 'failed'; error: unknown }

/**
 * The fields in which a record differs from the stored user with its _id. A plain-text password
 * is not compared: checking it against the stored hash costs an argon2 verification per user on
 * every run again, which the import avoids (a hash in the file is compared as text).
 */
function userDifferences(stored: UserRecord, incoming: IncomingUser): string[] {
  const fields = (['fullName', 'email', 'createdOn'] as const).filter((field) => stored[field] !== incoming[field]) as string[]
  if (isArgon2idHash(incoming.password) && incoming.password !== stored.passwordHash) fields.push('password')
  return fields
}

/**
 * A record whose _id is already taken by a different record is named, never dropped quietly:
 * import does not overwrite, so its content would otherwise be lost without a word.
 */
const conflictMessage = (kind: 'user' | 'note', id: string, fields: readonly string[]) =>
  `${kind} ${id}: a different ${kind} with this _id is already stored or earlier in the file ` +
  `(it differs in ${fields.join(', ')}); this record is not imported`

/** Looks the user up before hashing, so a second run costs no argon2 work; never rejects. */
async function prepareUser(store: Store, incoming: IncomingUser): Promise<Prepared> {
  try {
    const stored = await store.findUserById(incoming._id)
    if (stored) {
      const fields = userDifferences(stored, incoming)
      return fields.length === 0 ? { kind: 'exists' } : { kind: 'differs', fields }
    }
    if (await store.findUserByEmailKey(incoming.emailKey)) return { kind: 'duplicate' }
    const { password, ...rest } = incoming
    const passwordHash = isArgon2idHash(password) ? password : await defaultPasswordHasher.hash(password)
    return { kind: 'ready', user: { ...rest, passwordHash } }
  } catch (error) {
    return { kind: 'failed', error }
  }
}

const duplicateMessage = (user: { _id: string; email: string }) =>
  `duplicate email "${user.email}": another user already has it (compared as logins are: trimmed, NFKC, case-insensitively); user ${user._id} not imported`

async function importUsers(file: string, options: ImportOptions): Promise<PhaseSummary> {
  const { store, progress } = options
  const source = await openSource(file)
  const phase = new Phase(file, source.format, options)
  const counts = phase.summary
  progress.begin('users', source.totalBytes, source.bytesRead)
  const window: { raw: RawRecord; incoming: IncomingUser; prepared: Promise<Prepared> }[] = []
  let batch: { raw: RawRecord; incoming: IncomingUser; user: UserRecord }[] = []

  const flush = async () => {
    const written = batch
    batch = []
    const outcomes = await store.importUsers(written.map((w) => w.user))
    for (const [i, outcome] of outcomes.entries()) {
      const { raw, incoming, user } = written[i]!
      if (outcome === 'inserted') counts.imported++
      else if (outcome === 'duplicate-email') phase.reject(raw, 'duplicate email', duplicateMessage(user))
      else {
        // Stored after this record was looked up: earlier in the file, or by someone else.
        const stored = await store.findUserById(user._id)
        const fields = stored ? userDifferences(stored, incoming) : []
        if (fields.length === 0) counts.skipped++
        else phase.reject(raw, 'conflicting _id', conflictMessage('user', user._id, fields))
      }
    }
  }
  const settleOldest = async () => {
    const { raw, incoming, prepared } = window.shift()!
    const result = await prepared
    if (result.kind === 'failed') throw result.error
    if (result.kind === 'exists') counts.skipped++
    else if (result.kind === 'differs') phase.reject(raw, 'conflicting _id', conflictMessage('user', incoming._id, result.fields))
    else if (result.kind === 'duplicate') phase.reject(raw, 'duplicate email', duplicateMessage(incoming))
    else {
      batch.push({ raw, incoming, user: result.user })
      if (batch.length >= (options.batchSize ?? 500)) await flush()
    }
  }
  const settleAll = async () => {
    while (window.length) await settleOldest()
    await flush()
  }

  for await (const raw of source.records()) {
    counts.read++
    let incoming: IncomingUser
    try {
      incoming = parse(raw, userFromDocument)
    } catch (err) {
      if (!(err instanceof RecordError)) throw err
      if (options.strict) await settleAll() // what came before the bad record is imported
      phase.reject(raw, 'malformed', `malformed user: ${err.message}`)
      continue
    }
    window.push({ raw, incoming, prepared: prepareUser(store, incoming) })
    if (window.length >= options.hashConcurrency) await settleOldest()
    progress.tick(counts)
  }
  await settleAll()
  progress.end(counts)
  return counts
}

async function importNotes(file: string, options: ImportOptions): Promise<PhaseSummary> {
  const { store, progress } = options
  const source = await openSource(file)
  const phase = new Phase(file, source.format, options)
  const counts = phase.summary
  progress.begin('notes', source.totalBytes, source.bytesRead)
  let batch: { raw: RawRecord; note: NoteRecord }[] = []

  const flush = async () => {
    const written = batch
    batch = []
    const outcomes = await store.importNotes(written.map((w) => w.note))
    outcomes.forEach((outcome, i) => {
      const { raw, note } = written[i]!
      if (outcome === 'inserted') counts.imported++
      else if (outcome === 'exists') counts.skipped++
      else if (outcome === 'missing-user') phase.reject(raw, 'missing user', `note ${note._id}: its user ${note.userId} does not exist (not in the users file, or rejected)`)
      else phase.reject(raw, 'conflicting _id', conflictMessage('note', note._id, outcome.differs))
    })
  }

  for await (const raw of source.records()) {
    counts.read++
    let note: NoteRecord
    try {
      note = parse(raw, noteFromDocument)
    } catch (err) {
      if (!(err instanceof RecordError)) throw err
      if (options.strict) await flush()
      phase.reject(raw, 'malformed', `malformed note: ${err.message}`)
      continue
    }
    batch.push({ raw: { line: raw.line, index: raw.index }, note }) // not the text: the batch stays small
    if (batch.length >= (options.batchSize ?? 2000)) await flush()
    progress.tick(counts)
  }
  await flush()
  progress.end(counts)
  return counts
}

/** Users first, so that notes find their owners. */
export async function importData(options: ImportOptions): Promise<ImportSummary> {
  const started = performance.now()
  const users = options.usersFile ? await importUsers(options.usersFile, options) : emptyPhase()
  const notes = options.notesFile ? await importNotes(options.notesFile, options) : emptyPhase()
  return { users, notes, seconds: (performance.now() - started) / 1000 }
}

function describePhase(name: string, phase: PhaseSummary): string {
  const causes = Object.entries(phase.rejectedBy).map(([cause, n]) => `${n} ${cause}`)
  return `${name}: ${phase.imported} imported, ${phase.skipped} skipped (already present), ${phase.rejected} rejected${causes.length ? ` (${causes.join(', ')})` : ''}`
}

export function describeSummary(summary: ImportSummary): string {
  const records = summary.users.read + summary.notes.read
  const rate = Math.round(records / Math.max(summary.seconds, 0.001))
  return [
    `import finished in ${summary.seconds.toFixed(1)} s (${records} records, ${rate}/s)`,
    describePhase('users', summary.users),
    describePhase('notes', summary.notes),
  ].join('\n')
}
