// What every phase of the import shares: its options, its counts, the records of its file as they parse, and how a
// rejected record is reported (with its file and line) or stops --strict.
import type { BlobStorage } from '../blobs/types.js'
import type { Store, TransferStore } from '../store/types.js'
import type { RawRecord } from './json-splitter.js'
import { type Progress, zeroCounts } from './progress.js'
import { RecordError, parseEjson } from './records.js'
import { openSource } from './source.js'

export interface ImportOptions {
  store: Store & TransferStore
  usersFile?: string
  notesFile?: string
  /** notes-service's own trash and history exports (docs/migration.md), after the notes they belong with. */
  trashFile?: string
  historyFile?: string
  /** An export's attachments (attachments.json and a file per id), and the blob storage their bytes go to. */
  attachments?: { dir: string; blobs: BlobStorage }
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

/**
 * rejectedBy: by cause, 'malformed', 'duplicate email', 'missing user', 'missing note', 'conflicting _id', and for
 * attachments 'missing file' or 'sha256 mismatch'.
 */
export const emptyPhase = () => ({ ...zeroCounts(), rejectedBy: {} as Record<string, number> })
export type PhaseSummary = ReturnType<typeof emptyPhase>

/** `noun`: what one record is, in messages ('user', 'trashed note'). */
export async function openPhase(name: string, noun: string, file: string, options: ImportOptions) {
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
  async function* parsed<T>(
    fromDocument: (value: unknown) => T,
    settle: () => Promise<void>,
  ): AsyncGenerator<[RawRecord, T]> {
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

/** Import never overwrites, so a record whose _id is taken by a different one is named, not dropped quietly. */
export const conflictMessage = (kind: string, id: string, fields: readonly string[], key = 'with this _id') =>
  `${kind} ${id}: a different ${kind} ${key} is already stored or earlier in the file ` +
  `(it differs in ${fields.join(', ')}); this record is not imported`
