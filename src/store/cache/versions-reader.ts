// Users' versions, read once per turn for all its users (turn-batch.ts); with a version clock
// (SQLite), answered again while the clock, read this turn, is what it was before they were read.
// Every answer is read by a query sent after the call that asked: the cache layer compares kept
// entries only with such versions (CurrentVersion), so nothing it keeps outlives a change that
// committed before a request arrived, whatever notices have or have not arrived (docs/caching.md).
import { LRUCache } from 'lru-cache'
import type { StoreDriver, UserVersions } from '../driver.js'
import { oncePerTurn, perTurn } from './turn-batch.js'

/** The brand of CurrentVersion: declared, never exported, so only this module makes one. */
declare const readAfterAsked: unique symbol

/** A version read from the database after the lookup that holds it asked for it. */
export type CurrentVersion = string & { readonly [readAfterAsked]: true }

/** UserVersions as versionsReader answers them: current for the lookup that asked. */
export interface CurrentVersions {
  notes: CurrentVersion | null
  account: CurrentVersion
}

const current = (versions: UserVersions | undefined) => versions as CurrentVersions | undefined

export function versionsReader(
  driver: Pick<StoreDriver, 'userVersions' | 'versionClock'>,
  max: number,
): (userId: string) => Promise<CurrentVersions | undefined> {
  const read = perTurn((userIds: string[]) => driver.userVersions(userIds))
  if (!driver.versionClock) return (userId) => read(userId).then(current)
  const clockNow = oncePerTurn(driver.versionClock.bind(driver))
  const known = new LRUCache<string, { clock: string; versions: UserVersions | undefined }>({ max })
  return async (userId) => {
    const clock = await clockNow()
    const entry = known.get(userId)
    if (entry?.clock === clock) return current(entry.versions)
    // Read after the clock: a change between the two moves the clock past `clock`.
    const versions = await read(userId)
    known.set(userId, { clock, versions })
    return current(versions)
  }
}
