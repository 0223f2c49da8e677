// A store of either kind on a database a test can also read and write with SQL, as an operator
// would: SQLite on a file in a temporary directory (a second connection), PostgreSQL on a
// database of its own (a second pool). Used where a test must check the rows themselves
// (nothing left behind by a deleted account) or move them (a session last used long ago). Each store
// over the database is held to the limits it is opened with (src/store/limits.ts), as a server configured
// with them opens it: another store with other limits is another server's.
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { openPostgresStore } from '../../src/store/postgres/index.js'
import { SQLITE_FILE, openSqliteStore } from '../../src/store/sqlite/index.js'
import type { StoreDriver } from '../../src/store/driver.js'
import type { StoreLimits } from '../../src/store/limits.js'
import { TEST_SECRET } from './harness.js'
import { createTestDatabase, operatorPool } from './services.js'
import { type TestStore, type StoreKind, cached } from './stores.js'
import { tempDir } from './temp.js'

export interface StoreWithSql {
  kind: StoreKind
  /** The store as the service opens it: `driver` under the cache layer. */
  store: TestStore
  driver: StoreDriver
  /** Another process's store (another instance or worker) on the same database, cached too; held to `limits` when given. */
  openAnother(limits?: StoreLimits): Promise<TestStore>
  /** Runs one statement with `?` placeholders; the rows it returns. */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>
  /** The environment that makes the CLI use the same database. */
  env: Record<string, string>
  /** Closes the store and the SQL connection and removes the database. */
  close(): Promise<void>
}

/** `limits`: the store's (DEFAULT_LIMITS unless given). */
export async function openStoreWithSql(kind: StoreKind, limits?: StoreLimits): Promise<StoreWithSql> {
  const held = (limits?: StoreLimits) => (limits ? { limits } : {})
  if (kind === 'sqlite') {
    const dir = tempDir('notes-sql-')
    const driver = openSqliteStore({ dataDir: dir.path, ...held(limits) })
    const store = cached(driver)
    const db = new Database(join(dir.path, SQLITE_FILE))
    db.pragma('busy_timeout = 5000')
    const others: TestStore[] = []
    return {
      kind,
      store,
      driver,
      async openAnother(limits) {
        const other = cached(openSqliteStore({ dataDir: dir.path, ...held(limits) }))
        others.push(other)
        return other
      },
      env: { DATA_DIR: dir.path },
      async sql<T>(text: string, params: unknown[] = []) {
        const statement = db.prepare(text)
        return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as T[]
      },
      async close() {
        for (const other of others) await other.close()
        await store.close()
        db.close()
        dir.remove()
      },
    }
  }
  const database = await createTestDatabase()
  const driver = await openPostgresStore({ url: database.url, poolSize: 4, ...held(limits) })
  const store = cached(driver)
  const pool = operatorPool(database.url)
  const others: TestStore[] = []
  return {
    kind,
    store,
    driver,
    async openAnother(limits) {
      const other = cached(await openPostgresStore({ url: database.url, poolSize: 2, ...held(limits) }))
      others.push(other)
      return other
    },
    env: { DATABASE_URL: database.url, ACCESS_TOKEN_SECRET: TEST_SECRET },
    async sql<T>(text: string, params: unknown[] = []) {
      let n = 0
      return (
        await pool.query(
          text.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows as T[]
    },
    async close() {
      for (const other of others) await other.close()
      await store.close()
      await pool.end()
      await database.drop()
    },
  }
}
