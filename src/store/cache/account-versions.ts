// The account versions kept accounts and sessions are checked against: read after the request
// arrived, unless the driver's notices of account changes (PostgreSQL's NOTIFY) are proven to
// arrive; then a version read once serves until a notice says the account changed. Another
// instance's change is then seen when its notice arrives, not at its commit; listings never take
// this shortcut (docs/caching.md).
import { LRUCache } from 'lru-cache'
import type { AccountChangeHandler, UserVersions } from '../types.js'
import { oncePerTurn } from './turn-batch.js'

/** An account's version; with its notes version too when it was read for this lookup. */
export type AccountCheck = Pick<UserVersions, 'account'> & Partial<Pick<UserVersions, 'notes'>>

export class AccountVersions implements AccountChangeHandler {
  /** Versions read while notices were live, forgotten on a notice for their account. */
  private readonly known: LRUCache<string, AccountCheck>
  private isLive = false
  /** Bumped by every notice and change of liveness: a read that overlapped one is not kept. */
  private generation = 0
  private readonly endOfTurn = oncePerTurn(() => Promise.resolve())

  /** `onLive` is told when notices become live or are lost. */
  constructor(
    private readonly read: (userId: string) => Promise<UserVersions | undefined>,
    max: number,
    private readonly onLive?: (live: boolean) => void,
  ) {
    this.known = new LRUCache<string, AccountCheck>({ max })
  }

  /** The account's version now (with the notes version when read for this call); undefined: no such account. */
  of(userId: string): Promise<AccountCheck | undefined> {
    // Without notices, the read's own promise: no extra promise on every authenticated request.
    return this.isLive ? this.ofWhileLive(userId) : this.read(userId)
  }

  private async ofWhileLive(userId: string): Promise<AccountCheck | undefined> {
    // Notices read in the same poll phase as this request are applied before it is answered.
    await this.endOfTurn()
    const known = this.isLive ? this.known.get(userId) : undefined
    if (known !== undefined) return known
    const generation = this.generation
    const versions = await this.read(userId)
    if (versions !== undefined && this.isLive && generation === this.generation) this.known.set(userId, { account: versions.account })
    return versions
  }

  changed(userId: string | undefined): void {
    this.generation++
    if (userId === undefined) this.known.clear()
    else this.known.delete(userId)
  }

  /** Either way everything known is dropped: notices sent while they were not arriving were missed. */
  live(live: boolean): void {
    this.generation++
    this.known.clear()
    if (this.isLive === live) return
    this.isLive = live
    this.onLive?.(live)
  }

  closed(): void {
    this.generation++
    this.known.clear()
    this.isLive = false
  }
}
