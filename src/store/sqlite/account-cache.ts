// A cache of accounts by id for the embedded store. Every authenticated request reads its
// account (a token whose account is gone gets 401, decisions.md), and that read is the largest
// part of GET /get-user after Fastify itself (docs/performance.md, "What shaped the design": in
// A/B runs against the build without this cache, get-user answered 8 to 25 % more requests per
// second).
//
// Never stale, as the listing cache (listing-cache.ts): accounts are only ever inserted through
// this connection (registration, import), which cannot change an account already cached, and
// an unknown id is never cached; any commit by another connection (an operator deleting a user
// with the sqlite3 shell, another --workers process, an import) is seen before every lookup
// and clears the cache: the store checks (data-version.ts) before it calls get().
import { LRUCache } from 'lru-cache'
import type { UserRecord } from '../types.js'

/** Accounts kept (each a few hundred bytes): the same bound as the verified-token cache. */
export const ACCOUNT_CACHE_SIZE = 10_000

export class AccountCache {
  private readonly entries: LRUCache<string, UserRecord>

  constructor(max = ACCOUNT_CACHE_SIZE) {
    this.entries = new LRUCache<string, UserRecord>({ max })
  }

  /**
   * The account with this id, from the cache or from `read()`; undefined is not kept. The caller
   * has checked for other connections' commits first (data-version.ts).
   */
  get(id: string, read: () => UserRecord | undefined): UserRecord | undefined {
    const hit = this.entries.get(id)
    if (hit !== undefined) return hit
    const user = read()
    if (user !== undefined) this.entries.set(id, user)
    return user
  }

  clear(): void {
    this.entries.clear()
  }

  /** Entries held now (tests). */
  get size(): number {
    return this.entries.size
  }
}
