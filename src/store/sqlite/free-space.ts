// Free disk space for the SQLite store's writes (MIN_FREE_DISK_MB). A full disk fails every
// write, checkpoints included, and can leave the service unable to recover by itself, so writes
// that add data are refused (507) below the minimum, while deletes and reads still work and a
// user can make room. statfs is asked at most once a second, by the first write after the last
// reading aged; the margin to keep is what one second of writes can take (docs/storage.md,
// "Free disk space").
import { statfs } from 'node:fs/promises'
import { LowDiskSpaceError } from '../types.js'

/** Bytes an unprivileged process may still write on the file system. */
export type FreeSpaceReader = () => Promise<number>

export const statfsReader =
  (dir: string): FreeSpaceReader =>
  async () => {
    const stats = await statfs(dir)
    return stats.bavail * stats.bsize
  }

/** Longest time a reading is used. */
export const READING_MAX_AGE_MS = 1000

export class FreeSpaceGuard {
  private free: number | undefined
  private readAt = -Infinity
  private reading: Promise<void> | undefined

  constructor(
    private readonly minFreeBytes: number,
    private readonly read: FreeSpaceReader,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Resolves when a write may go ahead; rejects with LowDiskSpaceError when it may not. */
  async check(): Promise<void> {
    if (this.now() - this.readAt >= READING_MAX_AGE_MS) await (this.reading ??= this.refresh())
    if (this.free !== undefined && this.free < this.minFreeBytes) throw new LowDiskSpaceError(this.minFreeBytes)
  }

  private async refresh(): Promise<void> {
    try {
      this.free = await this.read()
    } catch {
      // The file system cannot say (the directory was removed, say): writes go ahead and meet
      // whatever error the disk gives them, rather than being refused on a guess.
      this.free = undefined
    } finally {
      this.readAt = this.now()
      this.reading = undefined
    }
  }
}
