// How the cache layer reads users' versions: once per turn of the event loop for all the users
// that turn serves (turn-batch.ts). Where the driver keeps a version clock (StoreDriver.versionClock,
// SQLite), a user's versions read earlier are answered again while the clock, read in this turn,
// answers what it answered before they were read: no version anywhere has changed since. A turn
// without a write anywhere then costs one read of one row, whatever the users it serves. (Read
// at every lookup instead of once per turn, the clock cost more than all the rest of a cached
// GET /get-all-notes: each SQLite statement outside a transaction takes a read lock.)
import { LRUCache } from 'lru-cache'
import type { StoreDriver, UserVersions } from '../types.js'
import { oncePerTurn, perTurn } from './turn-batch.js'

/** Versions read with the clock's answer from before the read. */
interface Known {
  clock: string
  versions: UserVersions | undefined
}

/** A user's versions as the database answers after the call (undefined: no such account). */
export type VersionsOf = (userId: string) => Promise<UserVersions | undefined>

export function versionsReader(driver: Pick<StoreDriver, 'userVersions' | 'versionClock'>, max: number): VersionsOf {
  const read = perTurn((userIds: string[]) => driver.userVersions(userIds))
  if (!driver.versionClock) return read
  const clockNow = oncePerTurn(driver.versionClock.bind(driver))
  const known = new LRUCache<string, Known>({ max })
  return async (userId) => {
    const clock = await clockNow()
    const entry = known.get(userId)
    if (entry?.clock === clock) return entry.versions
    // Read after the clock: a change between the two moves the clock past `clock`, so this
    // answer is used again only while nothing changed after it either.
    const versions = await read(userId)
    known.set(userId, { clock, versions })
    return versions
  }
}
