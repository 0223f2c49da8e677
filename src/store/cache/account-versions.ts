// The account versions the cache layer checks kept accounts and sessions against. Each is read
// from the database after the request arrived (one read per turn of the event loop), unless the
// driver pushes account changes (PostgreSQL's NOTIFY, StoreDriver.listenForAccountChanges) and
// its notices are proven to arrive: then a version read once is used again until a notice says
// the account changed, and a request with a kept session costs no round trip at all.
//
// The price of that shortcut: a change is seen by another instance when its notice arrives,
// milliseconds after the commit, not at the commit. Listings never take it: their writer may be
// a client of another instance whose next request must show its note (docs/caching.md).
import { LRUCache } from 'lru-cache'
import type { AccountChangeHandler, UserVersions } from '../types.js'
import { oncePerTurn } from './turn-batch.js'

/** An account's version; with its notes version too when it was read for this lookup. */
export type AccountCheck = Pick<UserVersions, 'account'> & Partial<Pick<UserVersions, 'notes'>>

export class AccountVersions implements AccountChangeHandler {
  /** Versions read while notices were live, forgotten on a notice for their account. */
  private readonly known: LRUCache<string, AccountCheck>
  private isLive = false
  /** Bumped by every notice and every change of liveness: a read that overlapped one is not kept. */
  private generation = 0
  /** Resolves at the end of the event loop's turn, shared by every caller of that turn. */
  private readonly endOfTurn = oncePerTurn(() => Promise.resolve())

  /**
   * `read`: the account's versions as the database answers now (undefined: no such account).
   * `onLive`: told when notices become live or are lost (the server logs it).
   */
  constructor(
    private readonly read: (userId: string) => Promise<UserVersions | undefined>,
    max: number,
    private readonly onLive?: (live: boolean) => void,
  ) {
    this.known = new LRUCache<string, AccountCheck>({ max })
  }

  /**
   * The account's version now, with its notes version when it was read for this call (not when
   * a notice vouches for a kept one); undefined when no account has this id.
   */
  of(userId: string): Promise<AccountCheck | undefined> {
    // Without notices the read's own promise is the answer: no layer of promises of its own on
    // the path every authenticated request of SQLite takes.
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
