// The attachment sweep (docs/attachments.md, "Links and retention"): erases the records no note has linked to for long enough
// and their bytes, then bytes no record names (left by a process that stopped between the two steps of an upload or
// of an erasure) and unfinished writes. Every instance runs it: the store's sweep hands each record to one of them,
// and erasing bytes already gone is no error.
import type { BlobStorage } from '../blobs/types.js'
import { SWEEP_BATCH } from '../store/trash-history.js'
import type { ErasedAttachment, Store } from '../store/types.js'

const HOUR_MS = 3_600_000
const DAY_MS = 24 * HOUR_MS

/** How long an upload no note ever linked to is kept. */
export const UNLINKED_UPLOAD_MS = DAY_MS
/** Bytes younger than this may belong to an upload whose record is being written: the orphan sweep leaves them. */
export const ORPHAN_AGE_MS = HOUR_MS

export interface AttachmentSweep {
  records: number
  orphans: number
  unfinished: number
}

export async function sweepAttachments(
  store: Store,
  blobs: BlobStorage,
  graceDays: number,
  now = Date.now(),
): Promise<AttachmentSweep> {
  const cutoffs = {
    uploadedBefore: new Date(now - UNLINKED_UPLOAD_MS).toISOString(),
    unreferencedBefore: new Date(now - graceDays * DAY_MS).toISOString(),
  }
  let records = 0
  for (;;) {
    const erased: ErasedAttachment[] = await store.sweepAttachments(cutoffs)
    for (const record of erased) await blobs.remove(record.blobKey)
    records += erased.length
    if (erased.length < SWEEP_BATCH) break
  }
  const orphans = await sweepOrphans(store, blobs, new Date(now - ORPHAN_AGE_MS))
  const unfinished = await blobs.removeUnfinished(new Date(now - ORPHAN_AGE_MS))
  return { records, orphans, unfinished }
}

/** Erases the bytes written before `before` that no record names: how many. */
async function sweepOrphans(store: Store, blobs: BlobStorage, before: Date): Promise<number> {
  let erased = 0
  let batch: string[] = []
  const eraseUnknown = async () => {
    const known = await store.knownBlobKeys(batch)
    for (const key of batch) {
      if (known.has(key)) continue
      await blobs.remove(key)
      erased++
    }
    batch = []
  }
  for await (const blob of blobs.list()) {
    if (blob.writtenOn >= before) continue
    batch.push(blob.key)
    if (batch.length >= SWEEP_BATCH) await eraseUnknown()
  }
  if (batch.length > 0) await eraseUnknown()
  return erased
}
