// Account versions for kept accounts and sessions: read after the request arrived, unless the
// driver's account notices (PostgreSQL's NOTIFY) are proven to arrive; then a version read once
// serves until a notice says the account changed, so another instance's change is seen when its
// notice arrives, not at its commit. Listings never take this shortcut (docs/caching.md).
import { LRUCache } from 'lru-cache'
import type { AccountChangeHandler, UserVersions } from '../types.js'
import { oncePerTurn } from './turn-batch.js'

/** An account's version; with its notes version too when it was read for this lookup. */
export type AccountCheck = Pick<UserVersions, 'account'> & Partial<Pick<UserVersions, 'notes'>>

export interface AccountVersions extends AccountChangeHandler {
  /** The account's version now; undefined: no such account. */
  of(userId: string): Promise<AccountCheck | undefined>
}

export function accountVersions(
  read: (userId: string) => Promise<UserVersions | undefined>,
  max: number,
  onLive?: (live: boolean) => void,
): AccountVersions {
  /** Versions read while notices were live, forgotten on a notice for their account. */
  const known = new LRUCache<string, AccountCheck>({ max })
  let isLive = false
  /** Bumped by every notice and change of liveness: a read that overlapped one is not kept. */
  let generation = 0
  const endOfTurn = oncePerTurn(() => Promise.resolve())
  const ofWhileLive = async (userId: string): Promise<AccountCheck | undefined> => {
    // Notices read in the same poll phase as this request are applied before it is answered.
    await endOfTurn()
    const kept = isLive ? known.get(userId) : undefined
    if (kept !== undefined) return kept
    const readIn = generation
    const versions = await read(userId)
    if (versions !== undefined && isLive && readIn === generation) known.set(userId, { account: versions.account })
    return versions
  }
  return {
    // Without notices, the read's own promise: no extra promise on every authenticated request.
    of: (userId) => (isLive ? ofWhileLive(userId) : read(userId)),
    changed(userId) {
      generation++
      if (userId === undefined) known.clear()
      else known.delete(userId)
    },
    // Either way everything known is dropped: notices sent while they were not arriving were missed.
    live(live) {
      generation++
      known.clear()
      if (isLive === live) return
      isLive = live
      onLive?.(live)
    },
    closed() {
      generation++
      known.clear()
      isLive = false
    },
  }
}
