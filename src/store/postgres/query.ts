// One query function over the pool for the driver's classes, and which failures mean "the
// database cannot be reached" (answered 503) rather than a bug.
import type pg from 'pg'
import { StoreUnavailableError } from '../errors.js'

export type Query = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  name: string,
  text: string,
  values: unknown[],
) => Promise<pg.QueryResult<R>>

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])
/** A server shutting down, starting, overloaded, or cancelling a statement at its timeout (57014). */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014'])
/** node-postgres raises these as plain Errors without a code. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  // The service is stopping: a request still running is answered 503, not a 500 logged as a bug.
  'Cannot use a pool after calling end on the pool',
]

export function isUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string') {
    // Class 08: connection exception.
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08')) return true
  }
  if (err instanceof AggregateError) return err.errors.some(isUnavailable)
  return UNAVAILABLE_MESSAGES.some((m) => err.message.includes(m))
}

/**
 * A deadlock (40P01) or a serialization failure (40001): PostgreSQL rolled the whole statement or transaction back,
 * so running it again is safe, and is what the contract needs: writes of one account under way together (a note's
 * edit and the account's deletion, writers whose usage shards collide) can close a cycle of row locks, and the one
 * PostgreSQL picks to break it did nothing wrong (docs/postgresql.md, "Deadlocks").
 */
export function mustRunAgain(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code
  return code === '40P01' || code === '40001'
}

/** Runs of one statement or transaction that a deadlock may end, before its error is answered. */
export const RUNS_ON_DEADLOCK = 4

/** `err` as StoreUnavailableError when it means the database cannot be reached. */
export function mapped(err: unknown): unknown {
  return isUnavailable(err)
    ? new StoreUnavailableError(`PostgreSQL unavailable: ${(err as Error).message}`, { cause: err })
    : err
}

/** A query function that prepares each named statement once per connection and maps outages. */
export function queryOver(pool: pg.Pool): Query {
  return async <R extends pg.QueryResultRow>(name: string, text: string, values: unknown[]) => {
    try {
      return await runAgainOnDeadlock(() => pool.query<R>({ name, text, values }))
    } catch (err) {
      throw mapped(err)
    }
  }
}

/** `run`'s answer; `run` again, from its start, while a deadlock or serialization failure ends it (mustRunAgain). */
async function runAgainOnDeadlock<T>(run: () => Promise<T>): Promise<T> {
  for (let runs = 1; ; runs++) {
    try {
      return await run()
    } catch (err) {
      if (runs >= RUNS_ON_DEADLOCK || !mustRunAgain(err)) throw err
    }
  }
}

/** The write's answer, or false when it broke a foreign key (23503): its account is gone. */
export async function unlessAccountGone(write: Promise<boolean>): Promise<boolean> {
  try {
    return await write
  } catch (err) {
    if ((err as { code?: unknown }).code === '23503') return false
    throw err
  }
}

/** Runs `work` between BEGIN and COMMIT on `client`; rolls back when it throws. */
export async function transaction<T>(client: pg.ClientBase, work: () => Promise<T>): Promise<T> {
  try {
    await client.query('BEGIN')
    const result = await work()
    await client.query('COMMIT')
    return result
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {})
    throw err
  }
}

/** Runs `work` in one transaction on one pooled connection; again, from its start, when a deadlock ended it. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect().catch((err: unknown) => {
    throw mapped(err)
  })
  try {
    return await runAgainOnDeadlock(() => transaction(client, () => work(client)))
  } catch (err) {
    throw mapped(err)
  } finally {
    client.release()
  }
}

/** A Query over one connection: a transaction's statements. */
export const queryOn =
  (client: pg.ClientBase): Query =>
  (name, text, values) =>
    client.query({ name, text, values })
