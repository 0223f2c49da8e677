// Free disk space for the SQLite store's writes (MIN_FREE_DISK_MB): a full disk fails every
// write, checkpoints included, so writes that add data are refused (507) below the minimum while
// deletes still make room. statfs is asked at most once a second (docs/storage.md, "Free disk space").
import { statfs } from 'node:fs/promises'
import { LowDiskSpaceError } from '../errors.js'

/** Bytes an unprivileged process may still write on the file system. */
export type FreeSpaceReader = () => Promise<number>

export const statfsReader =
  (dir: string): FreeSpaceReader =>
  () =>
    statfs(dir).then((stats) => stats.bavail * stats.bsize)

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
