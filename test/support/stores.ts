// The stores tests run against. openTestStore opens a fresh, empty store of either kind (closing
// it drops what it created), held to the limits given (src/store/limits.ts; DEFAULT_LIMITS unless given). The attack tests use StoreUnderTest: how to open a Store in
// process, what environment selects it in a child server, and how to check its files after a
// crash.
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { defaultConfig } from '../../src/config.js'
import { cachedStore } from '../../src/store/cache/index.js'
import { type StoreLimits, storeLimitsOf } from '../../src/store/limits.js'
import { openPostgresStore } from '../../src/store/postgres/index.js'
import { SQLITE_FILE, openSqliteStore } from '../../src/store/sqlite/index.js'
import { LIST_PAGE_ROWS } from '../../src/store/sqlite/notes.js'
import type { Store, TransferStore, UserRecord } from '../../src/store/types.js'
import type { StoreDriver } from '../../src/store/driver.js'
import { TEST_DATABASE_URL, createTestDatabase, serviceAvailable } from './services.js'
import { makeNote, makeUser } from './store-contract.js'

export type StoreKind = 'sqlite' | 'postgresql'

/** The store kinds usable here; PostgreSQL is left out (with one visible line) when unreachable. */
export function storeKinds(): StoreKind[] {
  return serviceAvailable('postgresql') ? ['sqlite', 'postgresql'] : ['sqlite']
}

/**
 * The limits the service opens its store with under the default configuration (and harness.ts's testConfig): what
 * a store an app runs on is opened with, unless its test configures other ones.
 */
export const SERVICE_LIMITS: StoreLimits = storeLimitsOf(defaultConfig)

/** A Store with the transfer store beside it: what the tests write and read through, whatever they need of either. */
export type TestStore = Store & TransferStore

/**
 * The store as the service opens it: the driver under the cache layer (src/store/open.ts), with the driver's
 * transfer store beside it, as an operator's command has it (open.ts, openCommandStore).
 */
export function cached(driver: StoreDriver): TestStore {
  return { ...driver, ...cachedStore(driver, { listingBytes: defaultConfig.listingCacheMb * 2 ** 20 }) }
}

/** A PostgreSQL driver on a database of its own, dropped when it is closed. */
export async function openTestPostgresDriver(limits?: StoreLimits): Promise<StoreDriver> {
  const db = await createTestDatabase()
  const store = await openPostgresStore({ url: db.url, poolSize: 4, ...(limits && { limits }) })
  return {
    ...store,
    async close() {
      await store.close()
      await db.drop()
    },
  }
}

/** A PostgreSQL store (cached, as the service opens it) on a database of its own, dropped when it is closed. */
export async function openTestPostgresStore(limits?: StoreLimits): Promise<TestStore> {
  return cached(await openTestPostgresDriver(limits))
}

/** A fresh store of this kind, cached as the service opens it unless `caches` is false (the bare driver). */
export async function openTestStore(kind: StoreKind, caches = true, limits?: StoreLimits): Promise<TestStore> {
  const driver =
    kind === 'postgresql'
      ? await openTestPostgresDriver(limits)
      : openSqliteStore({ dataDir: ':memory:', ...(limits && { limits }) })
  return caches ? cached(driver) : driver
}

/**
 * An in-memory SQLite store whose one user has notes enough for three list pages
 * (2 × LIST_PAGE_ROWS + 5, titled n0, n1, ... and created one second apart: `at(i)`), so a read
 * of them yields between pages and a write can land in the middle (the caches' overlap tests).
 */
export async function sqliteOwnerOfThreePages(): Promise<{
  store: TestStore
  owner: UserRecord
  at: (i: number) => string
}> {
  const store = cached(openSqliteStore({ dataDir: ':memory:' }))
  const owner = makeUser()
  await store.createUser(owner)
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString()
  await store.importNotes(
    Array.from({ length: 2 * LIST_PAGE_ROWS + 5 }, (_, i) => makeNote(owner._id, { title: `n${i}`, createdOn: at(i) })),
  )
  return { store, owner, at }
}

export interface StoreUnderTest {
  name: string
  /** A fresh in-process store for the harness, held to SERVICE_LIMITS. */
  open(): Promise<TestStore>
  /** Environment that makes `notes-service serve` use this store (DATA_DIR is always set). */
  childEnv(): Record<string, string>
  /**
   * Checks the store's own consistency after a crash; returns problems found (empty: none).
   * SQLite: PRAGMA integrity_check on the data directory's database file.
   */
  checkIntegrity(dataDir: string): Promise<string[]>
  /** Sockets the store's pool may legitimately keep open after a load (not a leak). */
  pooledConnections: number
}

export const sqliteUnderTest: StoreUnderTest = {
  name: 'sqlite',
  open: async () => cached(openSqliteStore({ dataDir: ':memory:', limits: SERVICE_LIMITS })),
  pooledConnections: 0,
  childEnv: () => ({}),
  async checkIntegrity(dataDir) {
    const db = new Database(join(dataDir, SQLITE_FILE))
    try {
      const rows = db.pragma('integrity_check', { simple: false }) as Array<{ integrity_check: string }>
      const problems = rows.map((r) => r.integrity_check).filter((r) => r !== 'ok')
      const fk = db.pragma('foreign_key_check') as unknown[]
      if (fk.length > 0) problems.push(`foreign_key_check: ${JSON.stringify(fk).slice(0, 500)}`)
      return problems
    } finally {
      db.close()
    }
  },
}

/**
 * PostgreSQL, when it is reachable (see services.ts; under CI=true an unreachable one fails the
 * run instead). In process, each store gets a database of its own; a child server uses the
 * TEST_DATABASE_URL database itself (in CI a fresh one per run), which is safe because every
 * attack test uses unique emails and verifies through HTTP. PostgreSQL checks its own WAL on
 * recovery, so there is no file check to run after a crash.
 */
export function postgresUnderTest(): StoreUnderTest | undefined {
  if (!serviceAvailable('postgresql')) return undefined
  return {
    name: 'postgresql',
    open: () => openTestPostgresStore(SERVICE_LIMITS),
    childEnv: () => ({ DATABASE_URL: TEST_DATABASE_URL }),
    checkIntegrity: async () => [],
    // The pool opens up to DATABASE_POOL_SIZE connections under load and keeps them while idle.
    pooledConnections: defaultConfig.databasePoolSize,
  }
}

/** SQLite, plus PostgreSQL when it is reachable. */
export function storesUnderTest(): StoreUnderTest[] {
  const pg = postgresUnderTest()
  return pg ? [sqliteUnderTest, pg] : [sqliteUnderTest]
}
