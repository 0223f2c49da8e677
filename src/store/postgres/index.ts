// The PostgreSQL store, for several stateless instances sharing one database (docs/postgresql.md): its sections,
// each in the file of its name, wired over the request pool; the version checks on a connection of their own.
import { migrateDatabase } from './migrate.js'
import type { StoreDriver, UserVersions } from '../driver.js'
import { DEFAULT_LIMITS, type StoreLimits } from '../limits.js'
import { postgresAccounts } from './accounts.js'
import { postgresAttachments } from './attachments.js'
import { postgresFeed } from './feed.js'
import { postgresNotes } from './notes.js'
import { type PostgresOptions, createPostgresPool, createVersionPool } from './pool.js'
import { queryOver } from './query.js'
import { postgresSearch } from './search.js'
import { postgresSessions } from './sessions.js'
import { postgresTransfer } from './transfer.js'
import { postgresTrashHistory } from './trash-history.js'

export { migrateDatabase, migratePostgres } from './migrate.js'
export { type PostgresOptions, createPostgresPool, createVersionPool, describeDatabase } from './pool.js'

/** What the store is opened with: the database's connections, and the limits that hold for as long as it is open. */
export interface PostgresStoreOptions extends PostgresOptions {
  /** DEFAULT_LIMITS unless given. */
  limits?: StoreLimits
}

export async function openPostgresStore(options: PostgresStoreOptions): Promise<StoreDriver> {
  const limits = options.limits ?? DEFAULT_LIMITS
  await migrateDatabase(options)
  const pool = createPostgresPool(options)
  const query = queryOver(pool)
  const versionPool = createVersionPool(options)
  const versionQuery = queryOver(versionPool)
  const { stopBuilding, ...search } = postgresSearch(options, pool, query)
  let closed: Promise<void> | undefined
  return {
    ...postgresAccounts(query, pool),
    ...postgresSessions(query, pool),
    ...postgresNotes(query, pool, limits),
    ...postgresTrashHistory(query, pool, limits),
    ...postgresFeed(query),
    ...search,
    ...postgresAttachments(query, pool, limits),
    ...postgresTransfer(query, pool, limits.quota),
    // Both versions in one statement, so in one snapshot; the notes' is their note_versions rows
    // (migration 4) joined in shard order, NULL without rows.
    userVersions: async (userIds) => {
      const { rows } = await versionQuery<{ user_id: string; account: string; notes: string | null }>(
        'versions.ofUsers',
        `SELECT a.user_id, a.version::text AS account,
           (SELECT string_agg(n.version::text, ',' ORDER BY n.shard) FROM note_versions n WHERE n.user_id = a.user_id) AS notes
         FROM account_versions a WHERE a.user_id = ANY($1::text[])`,
        [userIds],
      )
      return new Map<string, UserVersions>(rows.map((r) => [r.user_id, { notes: r.notes, account: r.account }]))
    },
    ping: async () => {
      await query('ping', 'SELECT 1', [])
    },
    close: () => {
      stopBuilding()
      return (closed ??= Promise.all([pool.end(), versionPool.end()]).then(() => {}))
    },
  }
}
