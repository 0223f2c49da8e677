// Opens a fresh, empty store of either kind for a test; closing it drops what it created.
import { openPostgresStore } from '../../src/store/postgres/index.js'
import { openSqliteStore } from '../../src/store/sqlite/index.js'
import type { Store } from '../../src/store/types.js'
import { createTestDatabase, serviceAvailable } from './services.js'

export type StoreKind = 'sqlite' | 'postgresql'

/** The store kinds usable here; PostgreSQL is left out (with one visible line) when unreachable. */
export function storeKinds(): StoreKind[] {
  return serviceAvailable('postgresql') ? ['sqlite', 'postgresql'] : ['sqlite']
}

/** A PostgreSQL store on a database of its own, dropped when the store is closed. */
export async function openTestPostgresStore(): Promise<Store> {
  const db = await createTestDatabase()
  const store = await openPostgresStore({ url: db.url, poolSize: 4 })
  return {
    ...store,
    async close() {
      await store.close()
      await db.drop()
    },
  }
}

export async function openTestStore(kind: StoreKind): Promise<Store> {
  return kind === 'postgresql' ? openTestPostgresStore() : openSqliteStore({ dataDir: ':memory:' })
}
