// The PostgreSQL store, for several stateless instances sharing one database (DATABASE_URL).
// node-postgres (`pg`) with a bounded pool; a lost database makes queries fail fast with
// StoreUnavailableError (503) and the pool reconnects by itself when the database returns.
import pg from 'pg'
import { earlierNumbers, sharedNumbers } from '../migrations.js'
import { limits, resizes } from '../note-quota.js'
import { type AccountChangeHandler, type StoreDriver, StoreUnavailableError, type UserVersions } from '../types.js'
import { AccountListener } from './account-notices.js'
import { type Migration, migrations } from './migrations.js'
import { PostgresNotes } from './notes.js'
import { PostgresQuota } from './quota.js'
import { PostgresSessions } from './sessions.js'
import { PostgresTransfer } from './transfer.js'
import { isUnavailable, queryOver } from './query.js'
import { PostgresUsers } from './users.js'

export interface PostgresOptions {
  url: string
  /** Most connections this process opens. */
  poolSize?: number
  /** Server-side limit for one statement; the client gives up one second later. */
  statementTimeoutMs?: number
  /** How long to wait for a new connection before answering 503. */
  connectTimeoutMs?: number
  /** The account listener's delivery check interval and reconnect pause (tests shorten them). */
  listenerCheckEveryMs?: number
  listenerRetryMs?: number
}

/** Where the database is, without user or password, for log lines and error messages. */
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
    // A half-open connection (database host gone without a reset) never answers; the client
    // side timeout turns that into an error instead of a request that hangs.
    query_timeout: statementTimeout + 1000,
    keepAlive: true,
    idleTimeoutMillis: 30_000,
    application_name: 'notes-service',
    ...overrides,
  })
  // An idle connection that the server closes emits 'error' on the pool; without a listener that
  // would crash the process. The pool drops that connection and opens a new one when needed;
  // the failure a request meets is reported (and answered 503) where it happens.
  pool.on('error', () => {})
  return pool
}

/**
 * The connection of the version checks (StoreDriver.userVersions), opened at the first one: the
 * cache layer never has more than one such query under way, and on a connection of its own that
 * query never waits behind the requests' queries in the main pool.
 *
 * Its statements use generic plans. PostgreSQL plans a prepared statement afresh for every
 * execution when the plan for the values at hand looks cheaper than the generic one, and for
 * `user_id = ANY($1::text[])` it always does (a one-element array looks cheaper than the ten
 * elements a generic plan assumes), and the planning costs more than the generic plan saves
 * (docs/performance.md, "What shaped the design"). Only this connection: elsewhere a generic
 * plan can be far worse (an unknown LIMIT is taken as a tenth of the rows).
 * https://www.postgresql.org/docs/current/runtime-config-query.html#GUC-PLAN-CACHE-MODE
 *
 * Set with SET when the connection opens, not with the startup `options`, which would replace
 * any the operator gives (PGOPTIONS, or `options` in DATABASE_URL, e.g. a search_path). The pool's
 * `onConnect` hook runs it before the pool hands the connection out, so the first version query
 * is never queued behind it: sent from the pool's 'connect' event instead, it would be, and
 * node-postgres warns (DeprecationWarning) on a query queued on a busy client, which pg 9 is to
 * refuse. Should the SET fail, that connection only plans as PostgreSQL chooses.
 * https://github.com/brianc/node-postgres/issues/3617 (the warning), /pull/3620 (onConnect)
 */
export function createVersionPool(options: PostgresOptions): pg.Pool {
  return createPostgresPool(options, {
    max: 1,
    application_name: 'notes-service versions',
    // pg-pool awaits what the hook returns before it hands the connection out; @types/pg 8.23
    // declares the hook's result void, hence the lint exception.
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    onConnect: async (client) => {
      await client.query('SET plan_cache_mode = force_generic_plan').catch(() => {})
    },
  })
}

/** Any fixed 64-bit number shared by every instance: the key of the migration lock. */
const MIGRATION_LOCK = 4_711_020_301

/**
 * Applies every migration that schema_changes does not record; returns how many ran. One
 * transaction holds a transaction-level advisory lock, so instances starting at once wait for
 * each other and each migration runs exactly once (PostgreSQL DDL is transactional). The builds
 * before the shared numbers (../migrations.ts) take the same lock.
 *
 * schema_changes (number, name, applied_on) records the changes by the shared numbers and alone
 * decides what runs. schema_migrations is what those earlier builds read: it is never rewritten,
 * and a change that had a number then is also recorded there under that number, so an earlier
 * instance still running, or started again, finds nothing to run (docs/architecture.md, "Migrations").
 */
export async function migratePostgres(client: pg.ClientBase, list: readonly Migration[] = migrations): Promise<number> {
  let count = 0
  try {
    await client.query('BEGIN')
    // Waiting for another instance's migration, or a long one, is not a slow request.
    await client.query('SET LOCAL statement_timeout = 0')
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_on text NOT NULL)`)
    await fillSchemaChanges(client)
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
    await client.query('COMMIT')
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {})
    throw err
  }
  return count
}

/**
 * When schema_changes is missing, makes it and records in it, by their shared numbers, the
 * changes schema_migrations records (sharedNumbers: an unknown row is an error); runs in the
 * migration's transaction, under its lock.
 */
async function fillSchemaChanges(client: pg.ClientBase): Promise<void> {
  const { rows: [found] } = await client.query<{ exists: boolean }>("SELECT to_regclass('schema_changes') IS NOT NULL AS exists")
  if (found!.exists) return
  await client.query(`CREATE TABLE schema_changes (
    number integer PRIMARY KEY, name text NOT NULL, applied_on text NOT NULL)`)
  const { rows } = await client.query<{ version: number; name: string; applied_on: string }>('SELECT version, name, applied_on FROM schema_migrations')
  for (const r of sharedNumbers('postgres', rows, migrations)) {
    await client.query('INSERT INTO schema_changes VALUES ($1, $2, $3)', [r.version, r.name, r.applied_on])
  }
}

/**
 * Migrates over a connection of its own, without the pool's statement and query timeouts;
 * rejects with one clear line (see startupError) when the database cannot be used.
 */
export async function migrateDatabase(options: PostgresOptions, list: readonly Migration[] = migrations): Promise<number> {
  const client = new pg.Client({ connectionString: options.url, connectionTimeoutMillis: options.connectTimeoutMs ?? 5000, application_name: 'notes-service migrate' })
  client.on('error', () => {}) // a broken connection also rejects the query in progress
  try {
    await client.connect()
    return await migratePostgres(client, list)
  } catch (err) {
    throw startupError(options.url, err)
  } finally {
    await client.end().catch(() => {})
  }
}

/** Turns a start-up failure into one clear line naming the database (never its password). */
export function startupError(url: string, err: unknown): Error {
  const where = describeDatabase(url)
  const why = err instanceof Error ? err.message || (err as { code?: string }).code || err.name : String(err)
  if (isUnavailable(err)) return new StoreUnavailableError(`cannot reach PostgreSQL at ${where}: ${why}`, { cause: err })
  return new Error(`PostgreSQL at ${where}: ${why}`, { cause: err })
}

/**
 * A user's note version from their note_versions rows (migration 4), all shards joined in shard
 * order; NULL when there are none.
 */
const NOTE_VERSION = "(SELECT string_agg(n.version::text, ',' ORDER BY n.shard) FROM note_versions n WHERE n.user_id = a.user_id)"

/** Opens the pool and applies migrations; rejects with one clear line when that fails. */
export async function openPostgresStore(options: PostgresOptions): Promise<StoreDriver> {
  await migrateDatabase(options)
  const pool = createPostgresPool(options)
  const query = queryOver(pool)
  const versionPool = createVersionPool(options)
  const versionQuery = queryOver(versionPool)
  const users = new PostgresUsers(query, pool)
  const sessions = new PostgresSessions(query, pool)
  const notes = new PostgresNotes(query)
  const transfer = new PostgresTransfer(pool, query)
  const quota = new PostgresQuota(query)
  let listening: { listener: AccountListener; handler: AccountChangeHandler } | undefined
  let closed: Promise<void> | undefined
  return {
    createUser: (user, session) => users.create(user, session),
    findUserByEmailKey: (key) => users.findByEmailKey(key),
    findUserById: (id) => users.findById(id),
    updateUser: (userId, change, revocation, actor) => users.update(userId, change, revocation, actor),
    deleteUser: (userId, actor) => users.delete(userId, actor),
    createSession: (session, prune) => sessions.create(session, prune),
    findSession: (sessionId) => sessions.find(sessionId),
    touchSession: (sessionId, lastUsedOn, staleBefore) => sessions.touchIfStale(sessionId, lastUsedOn, staleBefore),
    listSessions: (userId, createdSince) => sessions.list(userId, createdSince),
    deleteSession: (userId, sessionId, actor) => sessions.delete(userId, sessionId, actor),
    insertNote: (note, q) => (limits(q) ? quota.insertNote(note, q) : notes.insertNote(note)),
    findNote: (userId, noteId) => notes.findNote(userId, noteId),
    updateNote: (userId, noteId, patch, updatedOn, q) =>
      q !== undefined && q.bytes > 0 && resizes(patch)
        ? quota.updateNote(userId, noteId, patch, updatedOn, q)
        : notes.updateNote(userId, noteId, patch, updatedOn),
    deleteNote: (userId, noteId) => notes.deleteNote(userId, noteId),
    listNotesJson: (userId) => notes.listNotesJson(userId),
    searchNotesJson: (userId, matcher) => notes.searchNotesJson(userId, matcher),
    importUsers: (batch) => transfer.importUsers(batch),
    importNotes: (batch) => transfer.importNotes(batch),
    // Both versions in one statement, so in one snapshot; each user by primary keys.
    userVersions: async (userIds) => {
      const { rows } = await versionQuery<{ user_id: string; account: string; notes: string | null }>(
        'versions.ofUsers',
        `SELECT a.user_id, a.version::text AS account, ${NOTE_VERSION} AS notes
         FROM account_versions a WHERE a.user_id = ANY($1::text[])`,
        [userIds],
      )
      return new Map<string, UserVersions>(rows.map((r) => [r.user_id, { notes: r.notes, account: r.account }]))
    },
    listenForAccountChanges: async (handler) => {
      const listener = new AccountListener({
        url: options.url,
        connectTimeoutMs: options.connectTimeoutMs ?? 5000,
        // As long as the pool's client-side query timeout: a check slower than any query is a loss.
        checkTimeoutMs: (options.statementTimeoutMs ?? 5000) + 1000,
        checkEveryMs: options.listenerCheckEveryMs,
        retryMs: options.listenerRetryMs,
        onNotice: (id) => handler.changed(id),
        onLive: (live) => handler.live(live),
      })
      listening = { listener, handler }
      await listener.start()
    },
    noteUsage: (userId) => quota.usage(userId, async () => (await users.findById(userId)) !== undefined),
    accountsOverQuota: (q) => quota.accountsOver(q),
    usersAfter: (afterId, limit) => transfer.usersAfter(afterId, limit),
    notesAfter: (afterId, limit, userId) => transfer.notesAfter(afterId, limit, userId),
    ping: async () => {
      await query('ping', 'SELECT 1', [])
    },
    close: () => {
      // From here nothing is answered from memory on the strength of notices.
      listening?.handler.closed()
      return (closed ??= Promise.all([listening?.listener.close(), pool.end(), versionPool.end()]).then(() => {}))
    },
  }
}
