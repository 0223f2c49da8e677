// Users' versions, read once per turn for all its users (turn-batch.ts); with a version clock
// (SQLite), answered again while the clock, read this turn, is what it was before they were read.
import { LRUCache } from 'lru-cache'
import type { StoreDriver, UserVersions } from '../types.js'
import { oncePerTurn, perTurn } from './turn-batch.js'

export function versionsReader(
  driver: Pick<StoreDriver, 'userVersions' | 'versionClock'>,
  max: number,
): (userId: string) => Promise<UserVersions | undefined> {
  const read = perTurn((userIds: string[]) => driver.userVersions(userIds))
  if (!driver.versionClock) return read
  const clockNow = oncePerTurn(driver.versionClock.bind(driver))
  const known = new LRUCache<string, { clock: string; versions: UserVersions | undefined }>({ max })
  return async (userId) => {
    const clock = await clockNow()
    const entry = known.get(userId)
    if (entry?.clock === clock) return entry.versions
    // Read after the clock: a change between the two moves the clock past `clock`.
    const versions = await read(userId)
    known.set(userId, { clock, versions })
    return versions
  }
}
