// notes-service attachments migrate --to DRIVER (docs/attachments.md, "Moving between drivers"): every attachment's
// bytes copied from the driver that holds them to the target, read back and checked against the record's SHA-256
// and size, and only then the record pointed at them (Store.moveAttachmentBlob, which changes nothing when the
// record was erased or moved meanwhile) and the old bytes erased. Servers keep running throughout: the configured
// storage of each reads a key it does not hold from the other drivers its configuration opens (blobs/fallback.ts),
// and the record's key always names whole, checked bytes. A record already on the target is only checked, and the
// copies left elsewhere by a run that stopped are erased: running it again finishes what a run left, and moves what
// was uploaded since (the restart with the new ATTACHMENTS_STORAGE is followed by one more run).
import type { Readable } from 'node:stream'
import type { AttachmentRecord } from '../attachment-shape.js'
import { blobKeyOf } from '../blobs/keys.js'
import { BlobKeyError, BlobTooLargeError, type BlobStorage } from '../blobs/types.js'
import type { Store, TransferStore } from '../store/types.js'
import { PAGE_SIZE, paged } from './export-pages.js'
import { type Measured, describeBytes as describe, measure, sameBytes as same } from './hashed-copy.js'

export interface MigrationSummary {
  /** Copied to the target, checked there and the record switched. */
  moved: number
  /** Read back from the target with the record's SHA-256 and size: every moved and skipped record. */
  verified: number
  /** Already on the target, and checked. */
  skipped: number
  /** Left where they were: bytes missing or different, or an error. Each is reported. */
  failed: number
  /** Erased while the migration ran. */
  gone: number
}

export interface MigrationOptions {
  store: Store & TransferStore
  target: BlobStorage
  /** Every other driver the configuration opens, the configured one first: where the bytes may be. */
  others: readonly BlobStorage[]
  /** Told of each record that failed, with why. */
  report: (message: string) => void
  /** Told after each page of records. */
  progress?: (checked: number, summary: MigrationSummary) => void
}

type Outcome = 'moved' | 'skipped' | 'gone' | { failed: string }

/** The SHA-256 and size of the bytes under `key`, or undefined when the driver has none (or no such key). */
async function measured(blobs: BlobStorage, key: string): Promise<Measured | undefined> {
  let bytes: Readable | undefined
  try {
    bytes = await blobs.read(key)
  } catch (err) {
    if (err instanceof BlobKeyError) return undefined
    throw err
  }
  return bytes && measure(bytes)
}

/** Erases `key` from each driver that may hold it. */
async function removeFrom(drivers: readonly BlobStorage[], key: string): Promise<void> {
  for (const blobs of drivers) {
    try {
      await blobs.remove(key)
    } catch (err) {
      if (!(err instanceof BlobKeyError)) throw err
    }
  }
}

export async function migrateAttachments(options: MigrationOptions): Promise<MigrationSummary> {
  const { store, target, others } = options
  const summary: MigrationSummary = { moved: 0, verified: 0, skipped: 0, failed: 0, gone: 0 }

  /**
   * Erases the record's bytes from `drivers` once they are checked on the target: under the key it named, and under
   * the key each driver gives them (a run stopped after the switch left them there, under a key no record names any
   * more; keys hold the id, so no other record's). A failure is told, and the next run tries again.
   */
  async function eraseOld(record: AttachmentRecord, drivers: readonly BlobStorage[]): Promise<void> {
    try {
      for (const blobs of drivers) {
        const keys = new Set([record.blobKey, blobKeyOf(blobs.driver, record._id, record.sha256)])
        for (const key of keys) await removeFrom([blobs], key)
      }
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err)
      options.report(`attachment ${record._id}: on ${target.driver}, but its old bytes stay (run again): ${why}`)
    }
  }

  /** The switch found the record erased or moved by someone else: the copy made for it goes. */
  async function lost(record: AttachmentRecord, copied: string): Promise<Outcome> {
    const now = await store.attachmentById(record._id)
    if (now?.blobKey === copied) return 'skipped'
    await target.remove(copied)
    return now ? { failed: 'moved by someone else meanwhile; run again' } : 'gone'
  }

  async function move(record: AttachmentRecord): Promise<Outcome> {
    const targetKey = blobKeyOf(target.driver, record._id, record.sha256)
    const there = await measured(target, targetKey)
    if (there && !same(there, record))
      return { failed: `${target.driver} holds ${describe(there)} under ${targetKey}, not the record's; left as it is` }
    if (there) {
      if (record.blobKey !== targetKey && !(await store.moveAttachmentBlob(record._id, record.blobKey, targetKey)))
        return lost(record, targetKey)
      await eraseOld(record, others) // what a run that stopped after the switch left behind
      return 'skipped'
    }
    for (const source of others) {
      let bytes: Readable | undefined
      try {
        bytes = await source.read(record.blobKey)
      } catch (err) {
        if (err instanceof BlobKeyError) continue
        throw err
      }
      if (!bytes) continue
      const stored = await target.write(record._id, bytes, record.size).catch((err: unknown) => {
        if (err instanceof BlobTooLargeError) return undefined
        throw err
      })
      if (!stored || stored.sha256 !== record.sha256 || stored.size !== record.size) {
        if (stored) await target.remove(stored.key)
        const found = stored ? describe(stored) : `more than ${record.size} bytes`
        return { failed: `${source.driver} holds ${found} under ${record.blobKey}, not the record's; left as it is` }
      }
      const back = await measured(target, stored.key)
      if (!same(back, record)) {
        await target.remove(stored.key)
        return { failed: `read back from ${target.driver}, ${back ? describe(back) : 'nothing'}; left where it was` }
      }
      if (!(await store.moveAttachmentBlob(record._id, record.blobKey, stored.key))) return lost(record, stored.key)
      await eraseOld(record, [source])
      return 'moved'
    }
    if (!(await store.attachmentById(record._id))) return 'gone'
    const looked = [target, ...others].map((blobs) => blobs.driver).join(', ')
    return { failed: `its bytes (${record.blobKey}) are in none of the drivers this configuration opens (${looked})` }
  }

  let checked = 0
  for await (const page of paged<AttachmentRecord>((after) => store.attachmentsAfter(after?._id, PAGE_SIZE))) {
    for (const record of page) {
      let outcome: Outcome
      try {
        outcome = await move(record)
      } catch (err) {
        // An erasure racing the copy (a read cut short) is no failure.
        const gone = !(await store.attachmentById(record._id))
        outcome = gone ? 'gone' : { failed: err instanceof Error ? err.message : String(err) }
      }
      if (outcome === 'moved' || outcome === 'skipped') {
        summary[outcome]++
        summary.verified++
      } else if (outcome === 'gone') summary.gone++
      else {
        summary.failed++
        options.report(`attachment ${record._id}: ${outcome.failed}`)
      }
    }
    checked += page.length
    options.progress?.(checked, summary)
  }
  return summary
}
