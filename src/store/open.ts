// DATABASE_URL selects PostgreSQL, otherwise SQLite; the cache layer wraps either unless STORE_CACHE is
// off. The PostgreSQL driver is imported only when needed: an SQLite server would carry it for nothing. Either is
// opened with the configured limits (limits.ts), which hold for as long as it is open.
import type { Config } from '../config.js'
import { cachedStore } from './cache/index.js'
import { openSqliteStore } from './sqlite/index.js'
import type { StoreDriver } from './driver.js'
import { storeLimitsOf } from './limits.js'
import type { ExportReads, TransferStore } from './transfer.js'
import type { Store } from './types.js'

export function storeKind(config: Config): 'postgresql' | 'sqlite' {
  return config.databaseUrl ? 'postgresql' : 'sqlite'
}

/** Opens and migrates the configured store; rejects with one clear line if it cannot. */
export async function openStore(config: Config): Promise<Store> {
  return (await openStoreWithVersions(config)).store
}

/** The store, and its driver's version reads: what a server watches for changes made outside it (services/version-watch.ts). */
export async function openStoreWithVersions(
  config: Config,
): Promise<{ store: Store; versions: VersionsRead; exportReads: ExportReads }> {
  const driver = await openDriver(config)
  const clock = driver.versionClock?.bind(driver)
  const versions: VersionsRead = {
    userVersions: (ids) => driver.userVersions(ids),
    ...(clock && { versionClock: clock }),
  }
  // An export reads keyset pages once each, from the driver: nothing a cache keeps would serve them.
  const exportReads: ExportReads = driver
  if (!config.storeCache) return { store: driver, versions, exportReads }
  return { store: cachedStore(driver, { listingBytes: config.listingCacheMb * 2 ** 20 }), versions, exportReads }
}

/**
 * What an operator's command (import, export, users) opens: the Store and the transfer store of the bare driver. A
 * command reads each thing once, so no cache layer keeps anything, and no change bus runs (store/transfer.ts).
 */
export function openCommandStore(config: Config): Promise<Store & TransferStore> {
  return openDriver(config)
}

/** StoreDriver's version reads, apart from the Store. */
export type VersionsRead = Pick<StoreDriver, 'userVersions' | 'versionClock'>

async function openDriver(config: Config): Promise<StoreDriver> {
  const limits = storeLimitsOf(config)
  if (!config.databaseUrl) {
    const minFreeDiskBytes = config.minFreeDiskMb * 2 ** 20
    return openSqliteStore({ dataDir: config.dataDir, synchronous: config.sqliteSynchronous, minFreeDiskBytes, limits })
  }
  const { openPostgresStore } = await import('./postgres/index.js')
  return openPostgresStore({
    url: config.databaseUrl,
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    limits,
  })
}
