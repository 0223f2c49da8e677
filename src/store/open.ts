// Store selection: DATABASE_URL selects PostgreSQL, otherwise the embedded SQLite store.
// The PostgreSQL driver (`pg` and src/store/postgres) is imported only when DATABASE_URL is set:
// imported alone it adds ~14 MB of resident memory that an SQLite server would carry for nothing.
import type { Config } from '../config.js'
import { openSqliteStore } from './sqlite/index.js'
import type { Store } from './types.js'

export function storeKind(config: Config): 'postgresql' | 'sqlite' {
  return config.databaseUrl ? 'postgresql' : 'sqlite'
}

/** What a store may report while it runs (only the PostgreSQL store reports anything). */
export interface StoreEvents {
  /** The PostgreSQL account listener became live (true) or was lost (false). */
  accountListener?: (live: boolean) => void
}

/** Opens (and migrates) the configured store; rejects with one clear line when it cannot. */
export async function openStore(config: Config, events: StoreEvents = {}): Promise<Store> {
  if (!config.databaseUrl) {
    return openSqliteStore({
      dataDir: config.dataDir,
      synchronous: config.sqliteSynchronous,
      listingCacheBytes: config.listingCacheMb * 2 ** 20,
      minFreeDiskBytes: config.minFreeDiskMb * 2 ** 20,
    })
  }
  const { openPostgresStore } = await import('./postgres/index.js')
  return openPostgresStore({
    url: config.databaseUrl,
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    listingCacheBytes: config.listingCacheMb * 2 ** 20,
    onAccountListener: events.accountListener,
  })
}
