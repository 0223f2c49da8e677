// The cache layer above either driver: it keeps users' listings (the JSON bytes GET
// /get-all-notes sends), accounts by id and sessions by id in this process's memory, and wraps
// the driver so that everything else passes through as methods.ts classifies it: an account write
// through the one wrapper that forgets the account's version (docs/caching.md).
//
// Never stale, by construction: every kept entry carries the version of its user's notes or
// account that was read BEFORE the entry's data, and it is used only while the database, asked
// after the request arrived, answers that same version. The versions are kept by the database
// itself (triggers on notes, users and sessions; see each driver's migrations), so a write
// through any path (this process, another worker or instance, an import, an operator's SQL)
// changes them in its own transaction, and no write path can forget to. A write that lands
// between the version read and the data read only makes the entry unusable: the next check
// answers a newer version. Versions never repeat (a sequence or a counter that only grows).
// The one exception, on PostgreSQL only: while the database's notices of account changes are
// proven to arrive, a kept account or session is used until the notice of a change reaches this
// process, milliseconds after the commit (account-versions.ts, docs/caching.md).
import { LRUCache } from 'lru-cache'
import type { CheckedVersions, JsonText, SessionOfAccount, Store, StoreDriver, UserRecord } from '../types.js'
import { type AccountCheck, AccountVersions } from './account-versions.js'
import { type Versioned, keptByCount, keptBySize } from './kept.js'
import { type AccountsOf, STORE_METHODS, type StoreMethods } from './methods.js'
import { versionsReader } from './versions-reader.js'

export interface CacheOptions {
  /** Bytes of listings kept; 0: every listing is read from the database. */
  listingBytes: number
  /** Accounts kept, and sessions kept (each a few hundred bytes). */
  entries?: number
  /** Told when the driver's account notices become live or are lost (PostgreSQL; the server logs it). */
  onNotices?: (live: boolean) => void
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
  /**
   * `found` with the notes version last checked for it, answered again while that version is
   * read again: a kept session is then answered without making an object per request. An entry's
   * `found` never changes (a new read makes a new entry), so this is always a copy of it.
   */
  checked?: SessionOfAccount
  /** The notes version `checked` carries (its proof is opaque). */
  checkedNotes?: string | null
}

/** `driver`, with its listings, accounts and sessions kept in memory; closing the result closes the driver. */
export function cachedStore(driver: StoreDriver, options: CacheOptions): Store {
  const max = options.entries ?? CACHE_ENTRIES
  // One version read (or one read of the driver's version clock) serves every lookup of a turn.
  const versionsOf = versionsReader(driver, max)
  const accounts = keptByCount<UserRecord>(max)
  const sessions = new LRUCache<string, KeptSession>({ max })
  const listings = options.listingBytes > 0 ? keptBySize(options.listingBytes) : undefined
  const accountVersions = new AccountVersions(versionsOf, max, options.onNotices)

  /**
   * What a session lookup of this store answers as SessionOfAccount.checked: the user and the
   * notes version it read. A class of this store's own, not exported: listNotesJson trusts only
   * its instances (instanceof), so no other code, and no other store, can make one it accepts.
   */
  class Checked {
    constructor(
      readonly userId: string,
      readonly notes: string | null,
    ) {}
  }
  /** The opaque face of a Checked (CheckedVersions): the only place one is made. */
  const proof = (userId: string, notes: string | null): CheckedVersions => new Checked(userId, notes) as unknown as CheckedVersions
  // Where the driver pushes account changes, kept accounts and sessions are used on their
  // strength while they arrive (account-versions.ts); until then, and without, versions are read.
  void driver.listenForAccountChanges?.(accountVersions)

  /**
   * `cache`'s entry for `key` while its version is `now`; otherwise `read()`'s answer, kept with
   * `now` (a version read before it) unless it is undefined.
   */
  function validated<T extends object>(cache: LRUCache<string, Versioned<T>>, key: string, now: string, read: () => Promise<T | undefined>): Promise<T | undefined> {
    const entry = cache.get(key)
    if (entry?.version === now) return Promise.resolve(entry.kept)
    return read().then((kept) => {
      if (kept === undefined) cache.delete(key)
      else cache.set(key, { version: now, kept })
      return kept
    })
  }

  async function findUserById(id: string): Promise<UserRecord | undefined> {
    const now = await accountVersions.of(id)
    if (now !== undefined) return validated(accounts, id, now.account, () => driver.findUserById(id))
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
    const now = await accountVersions.of(known.userId)
    if (now !== undefined && known.found?.version === now.account) return withChecked(known, known.found.kept, now)
    const found = await driver.findSession(sessionId)
    if (found?.user._id !== known.userId) {
      sessions.delete(sessionId)
      return found
    }
    const kept: KeptSession = now !== undefined ? { userId: known.userId, found: { version: now.account, kept: found } } : { userId: known.userId }
    sessions.set(sessionId, kept)
    return withChecked(kept, found, now)
  }

  /**
   * `found` (the session of `known`) with the notes version read for this lookup, if one was
   * read. A kept entry is shared: never changed, so the copy is a new object, and the same copy
   * is answered while the same version is read.
   */
  function withChecked(known: KeptSession, found: SessionOfAccount, now: AccountCheck | undefined): SessionOfAccount {
    if (now?.notes === undefined) return found
    if (known.checkedNotes === now.notes && known.checked) return known.checked
    known.checked = { session: found.session, user: found.user, checked: proof(known.userId, now.notes) }
    known.checkedNotes = now.notes
    return known.checked
  }

  function listNotesJson(userId: string, checked?: CheckedVersions): Promise<JsonText> {
    if (!listings) return driver.listNotesJson(userId)
    // Versions read for this request's authentication serve here too (Store.listNotesJson):
    // then a kept listing is answered without a promise of this layer's own.
    if (checked instanceof Checked && checked.userId === userId) return listingAt(listings, userId, checked.notes)
    return versionsOf(userId).then((versions) => listingAt(listings, userId, versions?.notes))
  }

  /** A listing as it is kept: bytes, so that each answer of it sends them without encoding (JsonText). */
  const asBytes = (json: JsonText): Buffer => (typeof json === 'string' ? Buffer.from(json) : json)

  /** The user's listing: kept while the notes version is `now`; read when there is none. */
  function listingAt(kept: LRUCache<string, Versioned<Buffer>>, userId: string, now: string | null | undefined): Promise<JsonText> {
    if (now == null) return driver.listNotesJson(userId)
    return validated(kept, userId, now, () => driver.listNotesJson(userId).then(asBytes)) as Promise<Buffer>
  }

  /**
   * The driver's methods, each wrapped as STORE_METHODS classifies it: the one place where an
   * account write makes this process forget the account's version at once, whatever the
   * outcome; other processes see the change by its version, or by its notice.
   */
  const passed = throughClassification(driver, (sessionId) => sessions.get(sessionId)?.userId, (userId) => accountVersions.changed(userId))

  return {
    ...passed,
    findUserById,
    findSession,
    listNotesJson,
    // A new session's account is known: its first lookup can already be kept.
    createSession: async (session, prune) => {
      const created = await passed.createSession(session, prune)
      if (created) sessions.set(session._id, { userId: session.userId })
      return created
    },
    createUser: async (user, session) => {
      const created = await passed.createUser(user, session)
      if (created && session) sessions.set(session._id, { userId: user._id })
      return created
    },
  }
}

/**
 * Every Store method of `driver`, bound to it; an account write (STORE_METHODS) tells `changed`
 * of each account it names once it settles, whatever its outcome. Built from the classification,
 * not from the driver's own keys, so a method the classification lacks cannot pass through.
 */
function throughClassification(driver: StoreDriver, ownerOf: (sessionId: string) => string | undefined, changed: (userId: string) => void): Store {
  const store: Record<string, unknown> = {}
  for (const [name, treatment] of Object.entries(STORE_METHODS) as [keyof Store, StoreMethods[keyof Store]][]) {
    const method = (driver[name] as (...args: unknown[]) => Promise<unknown>).bind(driver)
    if (typeof treatment !== 'object') {
      store[name] = method
      continue
    }
    const accountsOf = treatment.account as AccountsOf<unknown[]>
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
