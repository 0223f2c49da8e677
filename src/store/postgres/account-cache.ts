// Accounts kept in memory by id for the PostgreSQL store. Every authenticated request reads its
// account (a token whose account is gone gets 401, decisions.md); on PostgreSQL that read is a
// round trip, which held GET /get-user to about a quarter of the node:http ceiling
// (docs/performance.md, "What shaped the design").
//
// The service only ever inserts accounts, so a cached one changes only when an operator edits or
// deletes it in the database. Migration 3 announces every such change on a channel, and the
// account listener (account-listener.ts) forgets the account when the notice arrives. The cache
// is used only while notices are proven to reach that listener: from the moment it is lost until
// it is live again, every lookup reads the database, and nothing read meanwhile is kept. A lookup
// whose read overlapped a notice or a loss is not kept either (the generation).
//
// The one window left: an operator's change is seen by an instance when its notice arrives,
// milliseconds after the commit. Listings are never cached this way, because there the writer is
// a client of another instance, and it must see its own acknowledged note at once.
import { LRUCache } from 'lru-cache'
import { sharedCheck } from '../shared-check.js'
import type { UserRecord } from '../types.js'

/** Accounts kept (each a few hundred bytes): the same bound as the SQLite store's. */
export const ACCOUNT_CACHE_SIZE = 10_000

export class ListenedAccountCache {
  private readonly entries: LRUCache<string, UserRecord>
  /** Bumped by every forget and every change of `live`: a read that overlapped one is not kept. */
  private generation = 0
  private live = false

  constructor(max = ACCOUNT_CACHE_SIZE) {
    this.entries = new LRUCache<string, UserRecord>({ max })
  }

  /**
   * Resolves at the end of the event loop's turn, shared by every lookup of that turn: by then
   * the poll phase that read the lookup's request has also read every notice that had arrived
   * with it, and the listener has forgotten those accounts. A lookup answered at once would miss
   * a notice read later in the same turn. Answering the turn's requests together is also
   * faster (docs/performance.md, "What shaped the design").
   */
  private readonly endOfTurn = sharedCheck(() => {})

  /** The account with this id, from memory while the listener is live, else from `read()`. */
  async get(id: string, read: () => Promise<UserRecord | undefined>): Promise<UserRecord | undefined> {
    if (this.live) {
      await this.endOfTurn()
      const hit = this.live ? this.entries.get(id) : undefined
      if (hit !== undefined) return hit
    }
    const generation = this.generation
    const user = await read()
    // An unknown id is never kept: the account may be created a moment later.
    if (user !== undefined && this.live && generation === this.generation) this.entries.set(id, user)
    return user
  }

  /** A notice: this account changed (undefined: any account may have). */
  forget(id: string | undefined): void {
    this.generation++
    if (id === undefined) this.entries.clear()
    else this.entries.delete(id)
  }

  /**
   * The listener is listening (true) or lost (false). Either way everything kept is dropped:
   * notices sent while it was away were missed.
   */
  setLive(live: boolean): void {
    this.generation++
    this.entries.clear()
    this.live = live
  }

  /** Entries held now (tests). */
  get size(): number {
    return this.entries.size
  }
}
