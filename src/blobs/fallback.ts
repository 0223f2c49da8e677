// The configured blob driver, and behind it the other drivers the configuration can open, for the bytes an
// operator's `attachments migrate` has moved while this process runs with the driver it started with
// (docs/attachments.md, "Moving between drivers"). The record's key is the truth: a migration switches it only once
// the bytes are whole and checked in the new place, so reading the key, in the configured driver first and then in
// the others, always finds them, before, during and after a migration, and after the restart with the new setting.
// Writes, listings and leftovers are the configured driver's alone; a removal goes to every driver, as the bytes
// may be in any.
import type { Readable } from 'node:stream'
import { BlobKeyError, type BlobStorage } from './types.js'

/** Opens another driver, once, when a key is first looked for there. */
export type OpenBlobs = () => Promise<BlobStorage>

/** `others`: the drivers to look in, in order, when the configured one does not hold a key. */
export function withFallbacks(primary: BlobStorage, others: readonly OpenBlobs[]): BlobStorage {
  if (others.length === 0) return primary
  const opened: Array<Promise<BlobStorage> | undefined> = others.map(() => undefined)
  const other = (i: number): Promise<BlobStorage> => {
    let open = opened[i]
    if (!open) {
      open = others[i]!()
      // A driver that failed to open is tried again next time.
      open.catch(() => (opened[i] = undefined))
      opened[i] = open
    }
    return open
  }
  /** Runs `use` on each driver in turn until it answers; a driver that never makes such a key is passed by. */
  async function first<T>(use: (blobs: BlobStorage) => Promise<T | undefined>, key: string): Promise<T | undefined> {
    let shaped = false
    for (let i = -1; i < others.length; i++) {
      try {
        const found = await use(i < 0 ? primary : await other(i))
        shaped = true
        if (found !== undefined) return found
      } catch (err) {
        if (!(err instanceof BlobKeyError)) throw err
      }
    }
    if (!shaped) throw new BlobKeyError(key)
    return undefined
  }
  return {
    driver: primary.driver,
    write: (id, source, limit) => primary.write(id, source, limit),
    read: (key, range) => first<Readable>((blobs) => blobs.read(key, range), key),
    async remove(key) {
      await first<never>(async (blobs) => {
        await blobs.remove(key)
        return undefined
      }, key)
    },
    list: () => primary.list(),
    removeUnfinished: (before) => primary.removeUnfinished(before),
    async close() {
      const open = await Promise.allSettled(opened.filter((o) => o !== undefined))
      for (const result of open) if (result.status === 'fulfilled') await result.value.close()
      await primary.close()
    },
  }
}
