// notes-service import: mongoexport files in, ids kept, plain-text passwords hashed, written through the
// store's idempotent bulk methods. Reading waits on the window of hashes and the batch: memory stays flat.
import { defaultPasswordHasher, isArgon2idHash } from '../services/passwords.js'
import type { NoteRecord, Store, UserRecord } from '../store/types.js'
import type { RawRecord } from './json-splitter.js'
import { type Progress, zeroCounts } from './progress.js'
import { type IncomingUser, RecordError, noteFromDocument, parseEjson, userFromDocument } from './records.js'
import { openSource } from './source.js'

export interface ImportOptions {
  store: Store
  usersFile?: string
  notesFile?: string
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

/** rejectedBy: by cause, 'malformed', 'duplicate email', 'missing user' or 'conflicting _id'. */
const emptyPhase = () => ({ ...zeroCounts(), rejectedBy: {} as Record<string, number> })
type PhaseSummary = ReturnType<typeof emptyPhase>
export type ImportSummary = Awaited<ReturnType<typeof importData>>

async function openPhase(name: string, file: string, options: ImportOptions) {
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
        reject(raw, 'malformed', `malformed ${name.slice(0, -1)}: ${err.message}`)
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
const conflictMessage = (kind: 'user' | 'note', id: string, fields: readonly string[]) =>
  `${kind} ${id}: a different ${kind} with this _id is already stored or earlier in the file ` +
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
  const { parsed, counts, reject } = await openPhase('users', file, options)
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

async function importNotes(file: string, options: ImportOptions): Promise<PhaseSummary> {
  const { store, progress } = options
  const { parsed, counts, reject } = await openPhase('notes', file, options)
  let batch: { raw: RawRecord; note: NoteRecord }[] = []

  const flush = async () => {
    const written = batch
    batch = []
    const outcomes = await store.importNotes(written.map((w) => w.note))
    outcomes.forEach((outcome, i) => {
      const { raw, note } = written[i]!
      if (outcome === 'inserted') counts.imported++
      else if (outcome === 'exists') counts.skipped++
      else if (outcome === 'missing-user') reject(raw, 'missing user', `note ${note._id}: its user ${note.userId} does not exist (not in the users file, or rejected)`)
      else reject(raw, 'conflicting _id', conflictMessage('note', note._id, outcome.differs))
    })
  }

  for await (const [raw, note] of parsed(noteFromDocument, flush)) {
    batch.push({ raw: { line: raw.line, index: raw.index }, note }) // not the text: the batch stays small
    if (batch.length >= (options.batchSize ?? 2000)) await flush()
  }
  await flush()
  progress.end(counts)
  return counts
}

/** Users first, so that notes find their owners. */
export async function importData(options: ImportOptions) {
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
