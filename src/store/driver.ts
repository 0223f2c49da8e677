// The driver contract: what src/store/sqlite/ and src/store/postgres/ each implement, above the Store the services
// see: the transfer store, and the versions the cache layer (cache/) checks. Each driver implements these in its index.ts.
import type { TransferStore } from './transfer.js'
import type { Store } from './types.js'

/** A user's versions, moved by triggers in every change's transaction: equal only while nothing changed. */
export interface UserVersions {
  /** Covers the user's notes; null: the database keeps none for this user now, and nothing may be kept. */
  notes: string | null
  /** Covers the account's row and its sessions. */
  account: string
}

export interface StoreDriver extends Store, TransferStore {
  /** The versions of these users as one read sees them; a user without an account is absent. */
  userVersions(userIds: readonly string[]): Promise<Map<string, UserVersions>>
  /** SQLite's version_clock: while it stands, earlier userVersions reads hold (PostgreSQL has none: docs/caching.md). */
  versionClock?(): Promise<string>
}
