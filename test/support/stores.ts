// The stores the attack tests run against. Each one knows how to open a Store in process (for
// the harness), what environment selects it in a child server, and how to check its files after
// a crash. SQLite always runs; PostgreSQL joins once its driver exists (see postgresUnderTest).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { SQLITE_FILE, openSqliteStore } from '../../src/store/sqlite/index.js'
import type { Store } from '../../src/store/types.js'

export interface StoreUnderTest {
  name: string
  /** A fresh in-process store for the harness. */
  open(): Promise<Store>
  /** Environment that makes `notes-service serve` use this store (DATA_DIR is always set). */
  childEnv(): Record<string, string>
  /**
   * Checks the store's own consistency after a crash; returns problems found (empty: none).
   * SQLite: PRAGMA integrity_check on the data directory's database file.
   */
  checkIntegrity(dataDir: string): Promise<string[]>
}

export const sqliteUnderTest: StoreUnderTest = {
  name: 'sqlite',
  open: async () => openSqliteStore({ dataDir: ':memory:' }),
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
 * PostgreSQL, once the driver selected by DATABASE_URL lands (issue 3). Runs when the
 * environment variable TEST_DATABASE_URL names a database (e.g. postgres://postgres@127.0.0.1/test).
 * To switch it on, replace `open` with the driver's opener (and make it create a fresh schema or
 * rely on the unique emails every test uses). The child server needs only DATABASE_URL; every
 * attack test verifies through HTTP, so nothing else changes. PostgreSQL checks its own WAL on
 * recovery; checkIntegrity could add `amcheck` (bt_index_check) when the extension is installed.
 */
export function postgresUnderTest(url: string | undefined = process.env.TEST_DATABASE_URL): StoreUnderTest | undefined {
  if (!url) return undefined
  return {
    name: 'postgresql',
    open: () => Promise.reject(new Error('the PostgreSQL driver has not landed on this branch yet: wire its opener here')),
    childEnv: () => ({ DATABASE_URL: url }),
    checkIntegrity: async () => [],
  }
}

/** SQLite, plus PostgreSQL when TEST_DATABASE_URL is set. */
export function storesUnderTest(): StoreUnderTest[] {
  const pg = postgresUnderTest()
  return pg ? [sqliteUnderTest, pg] : [sqliteUnderTest]
}

/** A fresh temporary directory, removed by the returned function. */
export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `notes-${prefix}-`))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}
