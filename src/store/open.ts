// DATABASE_URL selects PostgreSQL, otherwise SQLite; the cache layer wraps either unless STORE_CACHE is
// off. The PostgreSQL driver is imported only when needed: an SQLite server would carry it for nothing.
import type { Config } from '../config.js'
import { cachedStore } from './cache/index.js'
import { openSqliteStore } from './sqlite/index.js'
import type { Store, StoreDriver } from './types.js'

export function storeKind(config: Config): 'postgresql' | 'sqlite' {
  return config.databaseUrl ? 'postgresql' : 'sqlite'
}

/** Opens and migrates the configured store; rejects with one clear line if it cannot. `accountNotices`: CacheOptions.onNotices. */
export async function openStore(config: Config, events: { accountNotices?: (live: boolean) => void } = {}): Promise<Store> {
  const driver = await openDriver(config)
  if (!config.storeCache) return driver
  return cachedStore(driver, { listingBytes: config.listingCacheMb * 2 ** 20, onNotices: events.accountNotices })
}

async function openDriver(config: Config): Promise<StoreDriver> {
  if (!config.databaseUrl) {
    const minFreeDiskBytes = config.minFreeDiskMb * 2 ** 20
    return openSqliteStore({ dataDir: config.dataDir, synchronous: config.sqliteSynchronous, minFreeDiskBytes })
  }
  const { openPostgresStore } = await import('./postgres/index.js')
  return openPostgresStore({
    url: config.databaseUrl,
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
  })
}
