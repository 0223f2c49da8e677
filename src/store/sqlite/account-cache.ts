// A cache of accounts by id for the embedded store. Every authenticated request reads its
// account (a token whose account is gone gets 401, decisions.md), and that read was the largest
// cost of GET /get-user after Fastify itself: on the bench machine, a bare Fastify route that
// checked the token and read the account reached 0.45 of the node:http ceiling, and 0.60 when it
// only asked SQLite for PRAGMA data_version instead (README, "What the profiles showed").
//
// Never stale, as the listing cache (listing-cache.ts): accounts are only ever inserted through
// this connection (registration, import), which cannot change an account already cached, and
// an unknown id is never cached; any change by another connection (an operator deleting a user
// with the sqlite3 shell, another --workers process, an import) changes SQLite's data_version,
// checked before every lookup, and clears the cache
// (https://www.sqlite.org/pragma.html#pragma_data_version).
import type { Database, Statement } from 'better-sqlite3'
import { LRUCache } from 'lru-cache'
import type { UserRecord } from '../types.js'

/** Accounts kept (each a few hundred bytes): the same bound as the verified-token cache. */
export const ACCOUNT_CACHE_SIZE = 10_000

export class AccountCache {
  private readonly entries: LRUCache<string, UserRecord>
  private readonly dataVersion: Statement<[], number>
  private version: number

  constructor(db: Database, max = ACCOUNT_CACHE_SIZE) {
    this.entries = new LRUCache<string, UserRecord>({ max })
    this.dataVersion = db.prepare('PRAGMA data_version').pluck() as Statement<[], number>
    this.version = this.dataVersion.get() as number
  }

  /** The account with this id, from the cache or from `read()`; undefined is not kept. */
  get(id: string, read: () => UserRecord | undefined): UserRecord | undefined {
    const version = this.dataVersion.get() as number
    if (version !== this.version) {
      this.version = version
      this.entries.clear()
    }
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
