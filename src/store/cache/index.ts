// The cache layer above either driver: listings (the JSON bytes GET /get-all-notes sends),
// accounts and sessions kept in memory, each with the version of its user's notes or account read
// BEFORE its data, and used only while the database, asked after the request arrived, answers
// that version (docs/caching.md). Triggers move versions with every write, by any path, and the
// versions compared are only those read after the lookup asked (CurrentVersion, versions-reader.ts).
// Everything else passes through as store/methods.ts says it forgets.
import { LRUCache } from 'lru-cache'
import type { UserRecord } from '../accounts.js'
import type { StoreDriver } from '../driver.js'
import type { JsonText } from '../notes.js'
import type { CheckedVersions, SessionOfAccount } from '../sessions.js'
import type { Store } from '../types.js'
import { type AccountsOf, STORE_METHODS } from '../methods.js'
import { type CurrentVersion, type CurrentVersions, versionsReader } from './versions-reader.js'

export interface CacheOptions {
  /** Bytes of listings kept; 0: every listing is read from the database. */
  listingBytes: number
}

/** Accounts kept, and sessions kept: the same bound as the verified-token cache. */
const CACHE_ENTRIES = 10_000

/** Kept data with the version read before it: only a version read after some lookup asked can be kept. */
type Versioned<Kept> = { version: CurrentVersion; kept: Kept }

/** A session's account, learnt at its first lookup (a session never changes account), and the session once read after a version check. */
interface KeptSession {
  userId: string
  found?: Versioned<SessionOfAccount>
  /** `found` with the proof of `checkedNotes`, answered again while that notes version is read: no object per request. */
  checked?: SessionOfAccount
  checkedNotes?: CurrentVersion | null
}

/** Closing the result closes the driver. */
export function cachedStore(driver: StoreDriver, options: CacheOptions): Store {
  const versionsOf = versionsReader(driver, CACHE_ENTRIES)
  const accounts = new LRUCache<string, Versioned<UserRecord>>({ max: CACHE_ENTRIES })
  const sessions = new LRUCache<string, KeptSession>({ max: CACHE_ENTRIES })
  const listingBytes = options.listingBytes
  const listings =
    listingBytes > 0
      ? new LRUCache<string, Versioned<Buffer>>({
          maxSize: listingBytes,
          // An eighth at most, so one very long listing cannot push out everybody else's.
          maxEntrySize: Math.max(1, Math.floor(listingBytes / 8)),
          sizeCalculation: (entry) => Math.max(1, entry.kept.length + entry.version.length),
        })
      : undefined

  // SessionOfAccount.checked as this store makes it: listNotesJson trusts only instances of this
  // class of its own (instanceof), so no other code, and no other store, can make one it accepts.
  class Checked {
    constructor(
      readonly userId: string,
      readonly notes: CurrentVersion | null,
    ) {}
  }
  const proof = (userId: string, notes: CurrentVersion | null): CheckedVersions =>
    new Checked(userId, notes) as unknown as CheckedVersions

  /** `cache`'s entry for `key` while its version is `now`; otherwise `read()`'s answer, kept with `now` unless undefined. */
  function validated<T extends object>(
    cache: LRUCache<string, Versioned<T>>,
    key: string,
    now: CurrentVersion,
    read: () => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const entry = cache.get(key)
    if (entry?.version === now) return Promise.resolve(entry.kept)
    return read().then((kept) => {
      if (kept === undefined) cache.delete(key)
      else cache.set(key, { version: now, kept })
      return kept
    })
  }

  async function findUserById(id: string, fresh?: boolean): Promise<UserRecord | undefined> {
    if (fresh) return driver.findUserById(id)
    const now = await versionsOf(id)
    if (now !== undefined) return validated(accounts, id, now.account, () => driver.findUserById(id))
    accounts.delete(id)
    return driver.findUserById(id)
  }

  async function findSession(sessionId: string, fresh?: boolean): Promise<SessionOfAccount | undefined> {
    // Kept entries are left alone: the next lookup checks their version as always.
    if (fresh) return driver.findSession(sessionId)
    const known = sessions.get(sessionId)
    if (!known) {
      // Its account is not known yet, so no version could be read before it: not kept.
      const found = await driver.findSession(sessionId)
      if (found) sessions.set(sessionId, { userId: found.user._id })
      return found
    }
    const now = await versionsOf(known.userId)
    if (now !== undefined && known.found?.version === now.account) return withChecked(known, known.found.kept, now)
    const found = await driver.findSession(sessionId)
    if (found?.user._id !== known.userId) {
      sessions.delete(sessionId)
      return found
    }
    const kept: KeptSession =
      now !== undefined
        ? { userId: known.userId, found: { version: now.account, kept: found } }
        : { userId: known.userId }
    sessions.set(sessionId, kept)
    return withChecked(kept, found, now)
  }

  /** `found` with the notes version read for this lookup, if any: a copy, as kept entries are shared. */
  function withChecked(
    known: KeptSession,
    found: SessionOfAccount,
    now: CurrentVersions | undefined,
  ): SessionOfAccount {
    if (now === undefined) return found
    if (known.checkedNotes === now.notes && known.checked) return known.checked
    known.checked = { session: found.session, user: found.user, checked: proof(known.userId, now.notes) }
    known.checkedNotes = now.notes
    return known.checked
  }

  function listNotesJson(userId: string, checked?: CheckedVersions): Promise<JsonText> {
    if (!listings) return driver.listNotesJson(userId)
    // The versions read for this request's authentication serve here too (Store.listNotesJson).
    if (checked instanceof Checked && checked.userId === userId) return listingAt(listings, userId, checked.notes)
    return versionsOf(userId).then((versions) => listingAt(listings, userId, versions?.notes))
  }

  /** Kept as bytes, so that each answer sends them without encoding (JsonText). */
  const asBytes = (json: JsonText): Buffer => (typeof json === 'string' ? Buffer.from(json) : json)

  function listingAt(
    kept: LRUCache<string, Versioned<Buffer>>,
    userId: string,
    now: CurrentVersion | null | undefined,
  ): Promise<JsonText> {
    if (now == null) return driver.listNotesJson(userId)
    return validated(kept, userId, now, () => driver.listNotesJson(userId).then(asBytes)) as Promise<Buffer>
  }

  // An account write drops the kept account at once: memory, not correctness, as the next lookup
  // compares it with a version read after it asked.
  const classified = throughClassification(
    driver,
    (sessionId) => sessions.get(sessionId)?.userId,
    (userId) => accounts.delete(userId),
  )

  return {
    ...classified,
    findUserById,
    findSession,
    listNotesJson,
    // A new session's account is known: its first lookup can already be kept.
    createSession: async (session, prune) => {
      const created = await classified.createSession(session, prune)
      if (created) sessions.set(session._id, { userId: session.userId })
      return created
    },
    createUser: async (user, session) => {
      const created = await classified.createUser(user, session)
      if (created && session) sessions.set(session._id, { userId: user._id })
      return created
    },
  }
}

/** Built from STORE_METHODS, not the driver's keys, so an unclassified method cannot pass through. */
function throughClassification(
  driver: StoreDriver,
  ownerOf: (sessionId: string) => string | undefined,
  changed: (userId: string) => void,
): Store {
  const store: Record<string, unknown> = {}
  for (const [name, { forgets }] of Object.entries(STORE_METHODS) as [keyof Store, { forgets: unknown }][]) {
    const method = (driver[name] as (...args: unknown[]) => Promise<unknown>).bind(driver)
    if (typeof forgets !== 'object' || forgets === null) {
      store[name] = method
      continue
    }
    const accountsOf = (forgets as { accounts: AccountsOf<unknown[]> }).accounts
    store[name] = (...args: unknown[]) => {
      // Read before the write: a session's owner may be forgotten by the time it settles.
      const accounts = accountsOf(args, ownerOf)
      return method(...args).finally(() => {
        if (typeof accounts === 'string') changed(accounts)
        else accounts?.forEach(changed)
      })
    }
  }
  return store as unknown as Store
}
