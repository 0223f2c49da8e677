// The PostgreSQL store, for several stateless instances sharing one database (docs/postgresql.md).
import pg from 'pg'
import { type RecordedRow, earlierNumbers, sharedNumbers } from '../migrations.js'
import { limits, resizes } from '../note-quota.js'
import { type StoreDriver, StoreUnavailableError, type UserVersions } from '../types.js'
import { type Migration, migrations } from './migrations.js'
import { PostgresFeed } from './feed.js'
import { PostgresKept } from './kept.js'
import { PostgresNotes } from './notes.js'
import { PostgresSearch, buildSearchIndex } from './search.js'
import { PostgresQuota } from './quota.js'
import { postgresSessions } from './sessions.js'
import { postgresTransfer } from './transfer.js'
import { isUnavailable, queryOver, transaction } from './query.js'
import { postgresUsers } from './users.js'

export interface PostgresOptions {
  url: string
  poolSize?: number
  /** Server-side limit for one statement; the client gives up one second later. */
  statementTimeoutMs?: number
  connectTimeoutMs?: number
}

/** Where the database is, without user or password. */
export function describeDatabase(url: string): string {
  try {
    const u = new URL(url)
    return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname}`
  } catch {
    return '(unparsable DATABASE_URL)'
  }
}

/** `overrides`: settings of a pool for one purpose (createVersionPool), over the request pool's. */
export function createPostgresPool(options: PostgresOptions, overrides: pg.PoolConfig = {}): pg.Pool {
  const statementTimeout = options.statementTimeoutMs ?? 5000
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    statement_timeout: statementTimeout,
    // A half-open connection never answers: this turns it into an error, not a hung request.
    query_timeout: statementTimeout + 1000,
    keepAlive: true,
    idleTimeoutMillis: 30_000,
    application_name: 'notes-service',
    ...overrides,
  })
  // An idle connection the server closes emits 'error', which would crash the process unheard;
  // the pool replaces it, and a request's own failure is answered 503 where it happens.
  pool.on('error', () => {})
  return pool
}

/**
 * The one connection of the version checks (userVersions), never behind requests' queries. Plans are
 * generic: `user_id = ANY($1)` is otherwise planned afresh every run (docs/performance.md, "What shaped
 * the design"). SET, not startup `options`, which would replace the operator's; in `onConnect`, so no
 * version query queues behind it on a busy client (a pg deprecation).
 */
export function createVersionPool(options: PostgresOptions): pg.Pool {
  return createPostgresPool(options, {
    max: 1,
    application_name: 'notes-service versions',
    // pg-pool awaits the hook's promise; @types/pg declares its result void.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    onConnect: async (client) => {
      await client.query('SET plan_cache_mode = force_generic_plan').catch(() => {})
    },
  })
}

/** The key of the migration's advisory lock, the same in every instance and earlier build. */
const MIGRATION_LOCK = 4_711_020_301

/** Applies the migrations schema_changes lacks, once however many instances start (advisory lock); returns how many ran. */
export function migratePostgres(client: pg.ClientBase, list: readonly Migration[] = migrations): Promise<number> {
  return transaction(client, async () => {
    let count = 0
    // Waiting for another instance's migration, or a long one, is not a slow request.
    await client.query('SET LOCAL statement_timeout = 0')
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_on text NOT NULL)`)
    const { rows: [found] } = await client.query<{ exists: boolean }>("SELECT to_regclass('schema_changes') IS NOT NULL AS exists")
    if (!found!.exists) {
      await client.query(`CREATE TABLE schema_changes (
        number integer PRIMARY KEY, name text NOT NULL, applied_on text NOT NULL)`)
      const { rows } = await client.query<RecordedRow>('SELECT version, name, applied_on FROM schema_migrations')
      for (const r of sharedNumbers('postgres', rows, migrations)) {
        await client.query('INSERT INTO schema_changes VALUES ($1, $2, $3)', [r.version, r.name, r.applied_on])
      }
    }
    const { rows } = await client.query<{ number: number }>('SELECT number FROM schema_changes')
    const applied = new Set(rows.map((r) => r.number))
    for (const m of list) {
      if (applied.has(m.version)) continue
      if (m.sql) await client.query(m.sql)
      await m.run?.(client)
      const now = new Date().toISOString()
      await client.query('INSERT INTO schema_changes VALUES ($1, $2, $3)', [m.version, m.name, now])
      const earlier = earlierNumbers.postgres[m.name]
      if (earlier !== undefined) {
        await client.query('INSERT INTO schema_migrations VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [earlier, m.name, now])
      }
      count++
    }
    return count
  })
}

/** Migrates over its own connection, without the pool's timeouts; rejects with one line naming the database, not its password. */
export async function migrateDatabase(options: PostgresOptions, list: readonly Migration[] = migrations): Promise<number> {
  const client = new pg.Client({ connectionString: options.url, connectionTimeoutMillis: options.connectTimeoutMs ?? 5000, application_name: 'notes-service migrate' })
  client.on('error', () => {}) // a broken connection also rejects the query in progress
  try {
    await client.connect()
    return await migratePostgres(client, list)
  } catch (err) {
    const where = describeDatabase(options.url)
    const why = err instanceof Error ? err.message || (err as { code?: string }).code || err.name : String(err)
    if (isUnavailable(err)) throw new StoreUnavailableError(`cannot reach PostgreSQL at ${where}: ${why}`, { cause: err })
    throw new Error(`PostgreSQL at ${where}: ${why}`, { cause: err })
  } finally {
    await client.end().catch(() => {})
  }
}

export async function openPostgresStore(options: PostgresOptions): Promise<StoreDriver> {
  await migrateDatabase(options)
  const pool = createPostgresPool(options)
  const query = queryOver(pool)
  const versionPool = createVersionPool(options)
  const versionQuery = queryOver(versionPool)
  const users = postgresUsers(query, pool)
  const notes = new PostgresNotes(query)
  const search = new PostgresSearch(pool, query)
  let building: pg.Client | undefined
  const quota = new PostgresQuota(query)
  const kept = new PostgresKept(query, pool)
  const feed = new PostgresFeed(query)
  let closed: Promise<void> | undefined
  return {
    ...users,
    ...postgresSessions(query, pool),
    ...postgresTransfer(query, pool),
    insertNote: (note, q) => (limits(q) ? quota.insertNote(note, q) : notes.insertNote(note)),
    findNote: (userId, noteId) => notes.findNote(userId, noteId),
    updateNote: (userId, noteId, patch, now, terms) =>
      terms.quota !== undefined && terms.quota.bytes > 0 && resizes(patch)
        ? quota.updateNote(userId, noteId, patch, now, { ...terms, quota: terms.quota })
        : notes.updateNote(userId, noteId, patch, now, terms),
    deleteNote: (userId, noteId, deletion) => kept.deleteNote(userId, noteId, deletion),
    listTrash: (userId) => kept.listTrash(userId),
    restoreNote: (userId, noteId, now, q) => kept.restoreNote(userId, noteId, now, q),
    eraseTrash: (userId, noteId) => kept.eraseTrash(userId, noteId),
    noteHistory: (userId, noteId, limit) => kept.noteHistory(userId, noteId, limit),
    sweep: async (cutoffs) => ({ ...(await kept.sweep(cutoffs)), changes: await feed.sweep(cutoffs.changedBefore) }),
    changesSince: (userId, since, limit) => feed.changesSince(userId, since, limit),
    listNotesJson: (userId) => notes.listNotesJson(userId),
    searchNotesJson: (userId, matcher) => search.searchNotesJson(userId, matcher),
    buildSearchIndex: async (progress) => {
      // Its own connection: the build has no statement timeout, and close() ends it (the next start builds again).
      if (closed) throw new Error('the store is closed')
      const client = new pg.Client({ connectionString: options.url, connectionTimeoutMillis: options.connectTimeoutMs ?? 5000, application_name: 'notes-service' })
      building = client
      client.on('error', () => {})
      try {
        await client.connect()
        return await buildSearchIndex(client, query, progress)
      } finally {
        building = undefined
        await client.end().catch(() => {})
      }
    },
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
    noteUsage: (userId) => quota.usage(userId, async () => (await users.findUserById(userId)) !== undefined),
    accountsOverQuota: (q) => quota.accountsOver(q),
    ping: async () => {
      await query('ping', 'SELECT 1', [])
    },
    close: () => {
      // The index build's socket is cut, not ended: end() waits for the statement, and CREATE INDEX CONCURRENTLY may
      // wait for other transactions for long. PostgreSQL leaves an invalid index, which the next start builds again.
      ;(building as unknown as { connection?: { stream?: { destroy(): void } } } | undefined)?.connection?.stream?.destroy()
      return (closed ??= Promise.all([pool.end(), versionPool.end()]).then(() => {}))
    },
  }
}
