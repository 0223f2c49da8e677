// Store selection: DATABASE_URL selects PostgreSQL, otherwise the embedded SQLite store.
import type { Config } from '../config.js'
import { openPostgresStore } from './postgres/index.js'
import { openSqliteStore } from './sqlite/index.js'
import type { Store } from './types.js'

export function storeKind(config: Config): 'postgresql' | 'sqlite' {
  return config.databaseUrl ? 'postgresql' : 'sqlite'
}

/** Opens (and migrates) the configured store; rejects with one clear line when it cannot. */
export async function openStore(config: Config): Promise<Store> {
  if (!config.databaseUrl) {
    return openSqliteStore({ dataDir: config.dataDir, synchronous: config.sqliteSynchronous, listingCacheBytes: config.listingCacheMb * 2 ** 20 })
  }
  return openPostgresStore({
    url: config.databaseUrl,
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
  })
}
