// The PostgreSQL driver's connections: the request pool, the version checks' own connection, and where the database is.
import pg from 'pg'

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

/** A connection of its own, outside the pool and its timeouts (the migration, the search index's build). */
export function ownClient(options: PostgresOptions, applicationName: string): pg.Client {
  const client = new pg.Client({
    connectionString: options.url,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    application_name: applicationName,
  })
  client.on('error', () => {}) // a broken connection also rejects the query in progress
  return client
}
