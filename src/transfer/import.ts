// notes-service import: mongoexport files in, ids kept, plain-text passwords hashed, written through the
// store's idempotent bulk methods. Reading waits on the window of hashes and the batch: memory stays flat.
import { defaultPasswordHasher, isArgon2idHash } from '../services/passwords.js'
import type { Store, UserRecord } from '../store/types.js'
import { importAttachments } from './attachments-import.js'
import { HISTORY, NOTES, TRASH, importBatched } from './batched.js'
import type { RawRecord } from './json-splitter.js'
import { type ImportOptions, type PhaseSummary, conflictMessage, emptyPhase, openPhase } from './phase.js'
import { type IncomingUser, userFromDocument } from './records.js'

export { type ImportOptions, StrictStop } from './phase.js'
export type ImportSummary = Awaited<ReturnType<typeof importData>>

/** 'stored': the _id is taken, by a user differing in `fields` (none: the same one). */
type Prepared =
  | { kind: 'ready'; user: UserRecord }
  | { kind: 'stored'; fields: string[] }
  | { kind: 'duplicate' }
  | { kind: 'failed'; error: unknown }

/** A plain-text password is not compared: that costs an argon2 verification per user per run. */
function userDifferences(stored: UserRecord, incoming: IncomingUser): string[] {
  const fields = (['fullName', 'email', 'createdOn'] as const).filter(
    (field) => stored[field] !== incoming[field],
  ) as string[]
  if (isArgon2idHash(incoming.password) && incoming.password !== stored.passwordHash) fields.push('password')
  return fields
}

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

/**
 * Users first, so that notes and attachments find their owners; then the attachments, so that the notes' writes make
 * their links; then the trash, which checks that no live note has its ids; then the history, whose notes are live or
 * trashed by then. The attachments, the trash and the history are summarised only when given, so an import of the
 * original's two collections reports what it always has.
 */
export async function importData(options: ImportOptions) {
  const started = performance.now()
  const users = options.usersFile ? await importUsers(options.usersFile, options) : emptyPhase()
  const attachments = options.attachments
    ? await importAttachments(options.attachments.dir, options.attachments.blobs, options)
    : undefined
  const notes = options.notesFile ? await importBatched(NOTES, options.notesFile, options) : emptyPhase()
  const trash = options.trashFile ? await importBatched(TRASH, options.trashFile, options) : undefined
  const history = options.historyFile ? await importBatched(HISTORY, options.historyFile, options) : undefined
  return {
    users,
    ...(attachments ? { attachments } : {}),
    notes,
    ...(trash ? { trash } : {}),
    ...(history ? { history } : {}),
    seconds: (performance.now() - started) / 1000,
  }
}

/** The phases that ran or always report, in order, by name. */
export const phasesOf = (summary: ImportSummary): [string, PhaseSummary][] =>
  (['users', 'attachments', 'notes', 'trash', 'history'] as const).flatMap((name) =>
    summary[name] ? [[name, summary[name]] as [string, PhaseSummary]] : [],
  )

function describePhase(name: string, phase: PhaseSummary): string {
  const causes = Object.entries(phase.rejectedBy).map(([cause, n]) => `${n} ${cause}`)
  return `${name}: ${phase.imported} imported, ${phase.skipped} skipped (already present), ${phase.rejected} rejected${causes.length ? ` (${causes.join(', ')})` : ''}`
}

export function describeSummary(summary: ImportSummary): string {
  const phases = phasesOf(summary)
  const records = phases.reduce((sum, [, phase]) => sum + phase.read, 0)
  const rate = Math.round(records / Math.max(summary.seconds, 0.001))
  return [
    `import finished in ${summary.seconds.toFixed(1)} s (${records} records, ${rate}/s)`,
    ...phases.map(([name, phase]) => describePhase(name, phase)),
  ].join('\n')
}
