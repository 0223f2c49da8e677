// The cache layer above either driver: it keeps users' listings (the JSON bytes GET
// /get-all-notes sends), accounts by id and sessions by id in this process's memory, and wraps
// the driver so that everything else passes straight through (docs/caching.md).
//
// Never stale, by construction: every kept entry carries the version of its user's notes or
// account that was read BEFORE the entry's data, and it is used only while the database, asked
// after the request arrived, answers that same version. The versions are kept by the database
// itself (triggers on notes, users and sessions; see each driver's migrations), so a write
// through any path (this process, another worker or instance, an import, an operator's SQL)
// changes them in its own transaction, and no write path can forget to. A write that lands
// between the version read and the data read only makes the entry unusable: the next check
// answers a newer version. Versions never repeat (a sequence or a counter that only grows).
import { LRUCache } from 'lru-cache'
import type { SessionOfAccount, Store, StoreDriver, UserRecord, UserVersions } from '../types.js'
import { type Versioned, keptByCount, keptBySize } from './kept.js'
import { perTurn } from './turn-batch.js'

export interface CacheOptions {
  /** Bytes of listings kept; 0: every listing is read from the database. */
  listingBytes: number
  /** Accounts kept, and sessions kept (each a few hundred bytes). */
  entries?: number
}

/** 10 000 accounts and 10 000 sessions: the same bound as the verified-token cache. */
export const CACHE_ENTRIES = 10_000

/**
 * A session id's account, learnt from its first lookup (a session never changes account), and,
 * once read after a version check, the session with that version.
 */
interface KeptSession {
  userId: string
  found?: Versioned<SessionOfAccount>
}

/** `driver`, with its listings, accounts and sessions kept in memory (the driver stays the caller's to close through the result). */
export function cachedStore(driver: StoreDriver, options: CacheOptions): Store {
  // One version read serves every lookup made in one turn of the event loop.
  const versionsOf = perTurn((userIds: string[]) => driver.userVersions(userIds))
  const max = options.entries ?? CACHE_ENTRIES
  const accounts = keptByCount<UserRecord>(max)
  const sessions = new LRUCache<string, KeptSession>({ max })
  const listings = options.listingBytes > 0 ? keptBySize(options.listingBytes) : undefined

  /**
   * `cache`'s entry for `key` while its version is `now`; otherwise `read()`'s answer, kept with
   * `now` (a version read before it) unless it is undefined.
   */
  async function validated<T extends object>(cache: LRUCache<string, Versioned<T>>, key: string, now: string, read: () => Promise<T | undefined>): Promise<T | undefined> {
    const entry = cache.get(key)
    if (entry?.version === now) return entry.kept
    const kept = await read()
    if (kept === undefined) cache.delete(key)
    else cache.set(key, { version: now, kept })
    return kept
  }

  async function findUserById(id: string): Promise<UserRecord | undefined> {
    const now: UserVersions | undefined = await versionsOf(id)
    if (now) return validated(accounts, id, now.account, () => driver.findUserById(id))
    accounts.delete(id)
    return driver.findUserById(id)
  }

  async function findSession(sessionId: string): Promise<SessionOfAccount | undefined> {
    const known = sessions.get(sessionId)
    if (!known) {
      // Whose session it is is not known yet, so no version could be read before it: not kept.
      const found = await driver.findSession(sessionId)
      if (found) sessions.set(sessionId, { userId: found.user._id })
      return found
    }
    const now = await versionsOf(known.userId)
    if (now && known.found?.version === now.account) return known.found.kept
    const found = await driver.findSession(sessionId)
    if (found?.user._id !== known.userId) sessions.delete(sessionId)
    else sessions.set(sessionId, now ? { userId: known.userId, found: { version: now.account, kept: found } } : { userId: known.userId })
    return found
  }

  async function listNotesJson(userId: string): Promise<Buffer> {
    if (!listings) return driver.listNotesJson(userId)
    const now = (await versionsOf(userId))?.notes
    if (now == null) return driver.listNotesJson(userId)
    return (await validated(listings, userId, now, () => driver.listNotesJson(userId))) as Buffer
  }

  return {
    ...driver,
    findUserById,
    findSession,
    listNotesJson,
    // A new session's account is known: its first lookup can already be kept.
    createSession: async (session, prune) => {
      const created = await driver.createSession(session, prune)
      if (created) sessions.set(session._id, { userId: session.userId })
      return created
    },
    createUser: async (user, session) => {
      const created = await driver.createUser(user, session)
      if (created && session) sessions.set(session._id, { userId: user._id })
      return created
    },
  }
}
