// The external services some tests need: PostgreSQL and Redis. Each is probed once per test
// file. When one cannot be reached, tests that need it do not run; instead the file shows one
// line saying why: a skip outside CI, a failure under CI=true (CI must never go green by
// skipping them). TEST_DATABASE_URL names an existing database to connect to for creating and
// dropping the per-suite databases (`notes_test_<random>`); TEST_REDIS_URL names Redis.
import { randomBytes } from 'node:crypto'
import { it } from 'node:test'
import pg from 'pg'
import { Redis } from 'ioredis'

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15'
const IN_CI = process.env.CI === 'true'

// A probe tries for up to a minute, 15 s per attempt: with test files run four at a time on a busy 2-core machine, a
// connection to a running server took over 2 s, and once, beside another suite, longer than 15 s; a missed probe
// skips (or, in CI, fails) every test of the file although the service is up. A service that is down costs the
// minute once per file, so outside CI, where a missing service skips, one attempt decides.
const PROBE_MS = process.env.CI === 'true' ? 60_000 : 0

async function probeUntil(deadline: number, probe: () => Promise<string | undefined>): Promise<string | undefined> {
  for (;;) {
    const why = await probe()
    if (why === undefined || Date.now() > deadline) return why
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
}

async function probePostgresOnce(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 15_000 })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('SELECT 1')
    return undefined
  } catch (err) {
    return `PostgreSQL not reachable at ${TEST_DATABASE_URL} (${(err as Error).message || (err as { code?: string }).code}); set TEST_DATABASE_URL`
  } finally {
    await client.end().catch(() => {})
  }
}

const probePostgres = () => probeUntil(Date.now() + PROBE_MS, probePostgresOnce)

async function probeRedisOnce(): Promise<string | undefined> {
  const redis = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 15_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  })
  redis.on('error', () => {})
  try {
    await redis.connect()
    await redis.ping()
    return undefined
  } catch (err) {
    return `Redis not reachable at ${TEST_REDIS_URL} (${(err as Error).message}); set TEST_REDIS_URL`
  } finally {
    redis.disconnect()
  }
}

const probeRedis = () => probeUntil(Date.now() + PROBE_MS, probeRedisOnce)

/** Why PostgreSQL cannot be used here, or undefined when it can. */
export const postgresUnavailable = await probePostgres()
/** Why Redis cannot be used here, or undefined when it can. */
export const redisUnavailable = await probeRedis()

const reported = new Set<string>()
/**
 * True when the service can be used. Otherwise registers, once per file, the one visible line:
 * a skipped test outside CI, a failing one under CI=true.
 */
export function serviceAvailable(service: 'postgresql' | 'redis'): boolean {
  const why = service === 'postgresql' ? postgresUnavailable : redisUnavailable
  if (why === undefined) return true
  if (!reported.has(service)) {
    reported.add(service)
    if (IN_CI) {
      it(`${service} tests`, () => {
        throw new Error(`${why}; CI=true, so this fails instead of skipping`)
      })
    } else {
      it(`${service} tests`, { skip: why }, () => {})
    }
  }
  return false
}

export interface TestDatabase {
  url: string
  drop(): Promise<void>
}

/** Creates an empty database of its own (notes_test_<random>) and drops it when done. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `notes_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL })
  admin.on('error', () => {})
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(TEST_DATABASE_URL)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL })
      client.on('error', () => {})
      await client.connect()
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await client.end()
      }
    },
  }
}

/**
 * Deletes an account as an operator would, but without firing the account-versions trigger (migration 10)
 * (`session_replication_role = replica` skips triggers): no notice is sent, so only the
 * PostgreSQL store's account cache can still vouch for the account.
 */
export async function deleteAccountSilently(url: string, id: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  try {
    await client.query("SET session_replication_role = 'replica'")
    await client.query('DELETE FROM users WHERE id = $1', [id])
  } finally {
    await client.end()
  }
}

/**
 * A pool for a test's own SQL, as an operator would run it. pg.Pool's end() resolves before its
 * connections' sockets are closed, so the DROP DATABASE … WITH (FORCE) that follows can still
 * end one, and the pool re-emits that as an 'error' event: ignored here as the store's own pool
 * ignores it (src/store/postgres/pool.ts), instead of failing the run as an uncaught exception.
 */
export function operatorPool(url: string, max = 2): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max })
  pool.on('error', () => {})
  return pool
}
