// One query function over the pool for the driver's classes, and the rule deciding which
// failures mean "the database cannot be reached" (answered 503 by app.ts) rather than a bug.
import type pg from 'pg'
import { StoreUnavailableError } from '../types.js'

export type Query = <R extends pg.QueryResultRow = pg.QueryResultRow>(
  name: string,
  text: string,
  values: unknown[],
) => Promise<pg.QueryResult<R>>

/** Node socket errors that mean the server is not there (or went away). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'])
/**
 * SQLSTATEs of a server that is shutting down, starting, overloaded or cancelling our
 * statement after DATABASE_STATEMENT_TIMEOUT_MS (57014): the request may succeed later.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014'])
/** node-postgres raises these as plain Errors without a code. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  // The pool has been ended: the service is stopping. A request whose client has already gone
  // can still be running then (stopping the service under pipelined load does it); it gets the
  // 503 of a store that is not there, not a 500 logged as a bug.
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

/** A query function that prepares each named statement once per connection and maps outages. */
export function queryOver(pool: pg.Pool): Query {
  return async <R extends pg.QueryResultRow>(name: string, text: string, values: unknown[]) => {
    try {
      return await pool.query<R>({ name, text, values })
    } catch (err) {
      if (isUnavailable(err)) throw new StoreUnavailableError(`PostgreSQL unavailable: ${(err as Error).message}`, { cause: err })
      throw err
    }
  }
}

/**
 * Runs `work` in one transaction on one pooled connection; rolls back when it throws. A lost
 * database rejects with StoreUnavailableError, as queryOver's queries do.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let client: pg.PoolClient
  try {
    client = await pool.connect()
  } catch (err) {
    if (isUnavailable(err)) throw new StoreUnavailableError(`PostgreSQL unavailable: ${(err as Error).message}`, { cause: err })
    throw err
  }
  try {
    await client.query('BEGIN')
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {})
    if (isUnavailable(err)) throw new StoreUnavailableError(`PostgreSQL unavailable: ${(err as Error).message}`, { cause: err })
    throw err
  } finally {
    client.release()
  }
}
