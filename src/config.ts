// Typed defaults plus one parse function over an environment-like object (docs/configuration.md);
// only the CLI passes `process.env`.
import { availableParallelism } from 'node:os'

/** Half the cores, shared by the `workers` processes: searches at their budget leave the rest to the main threads. */
export function defaultSearchThreads(workers: number): number {
  return Math.max(1, Math.floor(availableParallelism() / (2 * workers)))
}

const MB = 1024 * 1024

export const defaultConfig = {
  port: 8000,
  host: '0.0.0.0',
  dataDir: './data',
  /** Undefined: use (or create) the secret file in `dataDir`. */
  accessTokenSecret: undefined as string | undefined,
  logLevel: 'info',
  bodyLimit: MB,
  /** Undefined: BODY_DRAIN_FACTOR × bodyLimit (unread-body.ts). */
  bodyDrainLimit: undefined as number | undefined,
  requestTimeoutMs: 30_000,
  connectionTimeoutMs: 60_000,
  trustProxy: false,
  sqliteSynchronous: 'FULL' as 'FULL' | 'NORMAL',
  listingCacheMb: 16,
  storeCache: true,
  bruteForce: {
    enabled: true,
    windowSeconds: 15 * 60,
    pairLimit: 10,
    emailLimit: 50,
    ipLimit: 100,
    sessionLimit: 5,
    registrationIpLimit: 50,
    registrationsPerClient: 300,
    registrationWindowSeconds: 3600,
  },
  /** What one account may keep (OWASP API4:2023); 0 switches a limit off. */
  noteQuota: { notes: 50_000, megabytes: 200 },
  registration: 'open' as 'open' | 'closed',
  minPasswordLength: 0,
  minFreeDiskMb: 100,
  /** port undefined: /metrics is served by the API's own port. */
  metrics: { enabled: true, port: undefined as number | undefined, host: '0.0.0.0' },
  /** Undefined selects the embedded SQLite store. */
  databaseUrl: undefined as string | undefined,
  databasePoolSize: 10,
  databaseStatementTimeoutMs: 5000,
  databaseConnectTimeoutMs: 5000,
  redisUrl: undefined as string | undefined,
  workers: 1,
  searchThreads: defaultSearchThreads(1),
  searchQueue: 64,
  searchTimeoutMs: 2000,
  /** Not read from the environment: OWASP's minimum for argon2id; tests not about hashing lower it. */
  passwordHashing: { memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 },
}

export type Config = typeof defaultConfig
export type BruteForceConfig = Config['bruteForce']
export type NoteQuotaConfig = Config['noteQuota']
export type PasswordHashingConfig = Config['passwordHashing']
export type MetricsConfig = Config['metrics']

/** A bad environment variable: the message names it, so start-up can print one clear line. */
export class ConfigError extends Error {
  override name = 'ConfigError'
  constructor(readonly variable: string, detail: string) {
    super(`${variable}: ${detail}`)
  }
}

export type Env = Readonly<Record<string, string | undefined>>

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/** The smallest secret we accept: 256 bits, the size of the HS256 key (RFC 7518 §3.2). */
export const MIN_SECRET_BYTES = 32

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be a whole number, got "${raw}"`)
  const value = Number(raw.trim())
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`)
  return value
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase()
  if (raw === undefined || raw === '') return fallback
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true
  if (['0', 'false', 'no', 'off'].includes(raw)) return false
  throw new ConfigError(name, `must be true or false, got "${env[name]}"`)
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name]?.trim()
  if (raw === undefined || raw === '') return fallback
  const match = allowed.find((a) => a.toLowerCase() === raw.toLowerCase())
  if (!match) throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`)
  return match
}

/** A size in bytes, or a number with a kb/mb suffix (binary units), within [min, max]. */
function byteSize<T>(env: Env, name: string, fallback: T, [min, max, range]: [number, number, string]): number | T {
  const raw = env[name]?.trim().toLowerCase()
  if (raw === undefined || raw === '') return fallback
  const m = /^(\d+)\s*(b|kb|kib|mb|mib)?$/.exec(raw)
  if (!m) throw new ConfigError(name, `must be a size such as 1048576, 512kb or 1mb, got "${env[name]}"`)
  const unit = m[2] ?? 'b'
  const factor = unit.startsWith('k') ? 1024 : unit.startsWith('m') ? MB : 1
  const value = Number(m[1]) * factor
  if (value < min || value > max) throw new ConfigError(name, `must be between ${range}`)
  return value
}

function metricsConfig(env: Env, apiHost: string): MetricsConfig {
  const raw = env.METRICS_PORT?.trim()
  const port = raw === undefined || raw === '' ? undefined : integer(env, 'METRICS_PORT', 0, 1, 65535)
  const apiPort = integer(env, 'PORT', defaultConfig.port, 0, 65535)
  // The second listener would fail at start-up with EADDRINUSE; say why now.
  if (port !== undefined && port === apiPort) {
    throw new ConfigError('METRICS_PORT', `must differ from PORT (${apiPort}); leave it unset to serve /metrics on PORT`)
  }
  return { enabled: boolean(env, 'METRICS_ENABLED', defaultConfig.metrics.enabled), port, host: env.METRICS_HOST?.trim() || apiHost }
}

function url(env: Env, name: string, schemes: readonly string[]): string | undefined {
  const raw = env[name]?.trim()
  if (raw === undefined || raw === '') return undefined
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(name, `must be a URL such as ${schemes[0]}://host:port/..., got something unparsable`)
  }
  // The value itself is never echoed: it may carry a password.
  if (!schemes.includes(parsed.protocol.slice(0, -1))) {
    throw new ConfigError(name, `must start with ${schemes.map((s) => `${s}://`).join(' or ')}, got "${parsed.protocol}//"`)
  }
  return raw
}

/** Largest WORKERS value: more processes only add contention on any machine we target. */
export const MAX_WORKERS = 64

/** Throws ConfigError naming the first bad variable. */
export function parseConfig(env: Env): Config {
  const d = defaultConfig
  const secret = env.ACCESS_TOKEN_SECRET
  if (secret !== undefined && secret !== '' && Buffer.byteLength(secret, 'utf8') < MIN_SECRET_BYTES) {
    throw new ConfigError(
      'ACCESS_TOKEN_SECRET',
      `must be at least ${MIN_SECRET_BYTES} bytes long (got ${Buffer.byteLength(secret, 'utf8')}); ` +
        'unset it to have one generated in the data directory',
    )
  }
  const logLevel = env.LOG_LEVEL?.trim().toLowerCase() || d.logLevel
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`)
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres', 'postgresql'])
  if (databaseUrl !== undefined && (secret === undefined || secret === '')) {
    // A generated secret lives in one instance's DATA_DIR: tokens of one would fail on the others.
    throw new ConfigError('ACCESS_TOKEN_SECRET', 'must be set when DATABASE_URL is set: every instance on one database must share it')
  }
  const host = env.HOST?.trim() || d.host
  const auto = env.WORKERS?.trim().toLowerCase() === 'auto'
  const processes = auto ? Math.min(availableParallelism(), MAX_WORKERS) : integer(env, 'WORKERS', d.workers, 1, MAX_WORKERS)
  return {
    port: integer(env, 'PORT', d.port, 0, 65535),
    host,
    dataDir: env.DATA_DIR?.trim() || d.dataDir,
    accessTokenSecret: secret === '' ? undefined : secret,
    logLevel,
    bodyLimit: byteSize(env, 'BODY_LIMIT', d.bodyLimit, [1024, 64 * MB, '1kb and 64mb']),
    bodyDrainLimit: byteSize(env, 'BODY_DRAIN_LIMIT', d.bodyDrainLimit, [0, 1024 * MB, '0 and 1024mb']),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', d.requestTimeoutMs, 100, 3_600_000),
    connectionTimeoutMs: integer(env, 'CONNECTION_TIMEOUT_MS', d.connectionTimeoutMs, 100, 3_600_000),
    trustProxy: boolean(env, 'TRUST_PROXY', d.trustProxy),
    sqliteSynchronous: oneOf(env, 'SQLITE_SYNCHRONOUS', ['FULL', 'NORMAL'] as const, d.sqliteSynchronous),
    listingCacheMb: integer(env, 'LISTING_CACHE_MB', d.listingCacheMb, 0, 65_536),
    storeCache: boolean(env, 'STORE_CACHE', d.storeCache),
    bruteForce: {
      enabled: boolean(env, 'BRUTE_FORCE_PROTECTION', d.bruteForce.enabled),
      windowSeconds: integer(env, 'BRUTE_FORCE_WINDOW_SECONDS', d.bruteForce.windowSeconds, 1, 86_400 * 7),
      pairLimit: integer(env, 'LOGIN_FAILURES_PER_ACCOUNT_AND_CLIENT', d.bruteForce.pairLimit, 1, 1_000_000),
      emailLimit: integer(env, 'LOGIN_FAILURES_PER_ACCOUNT', d.bruteForce.emailLimit, 1, 1_000_000),
      ipLimit: integer(env, 'LOGIN_FAILURES_PER_CLIENT', d.bruteForce.ipLimit, 1, 1_000_000),
      sessionLimit: integer(env, 'PASSWORD_FAILURES_PER_SESSION', d.bruteForce.sessionLimit, 1, 1000),
      registrationIpLimit: integer(env, 'DUPLICATE_REGISTRATIONS_PER_CLIENT', d.bruteForce.registrationIpLimit, 1, 1_000_000),
      registrationsPerClient: integer(env, 'REGISTRATIONS_PER_CLIENT', d.bruteForce.registrationsPerClient, 1, 1_000_000),
      registrationWindowSeconds: integer(env, 'REGISTRATION_WINDOW_SECONDS', d.bruteForce.registrationWindowSeconds, 1, 86_400 * 7),
    },
    noteQuota: {
      notes: integer(env, 'MAX_NOTES_PER_ACCOUNT', d.noteQuota.notes, 0, 1_000_000_000),
      megabytes: integer(env, 'MAX_NOTE_MB_PER_ACCOUNT', d.noteQuota.megabytes, 0, 1_048_576),
    },
    registration: oneOf(env, 'REGISTRATION', ['open', 'closed'] as const, d.registration),
    minPasswordLength: integer(env, 'MIN_PASSWORD_LENGTH', d.minPasswordLength, 0, 1024),
    minFreeDiskMb: integer(env, 'MIN_FREE_DISK_MB', d.minFreeDiskMb, 0, 1_048_576),
    metrics: metricsConfig(env, host),
    databaseUrl,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', d.databasePoolSize, 1, 1000),
    databaseStatementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', d.databaseStatementTimeoutMs, 100, 3_600_000),
    databaseConnectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', d.databaseConnectTimeoutMs, 100, 600_000),
    redisUrl: url(env, 'REDIS_URL', ['redis', 'rediss']),
    workers: processes,
    searchThreads: integer(env, 'SEARCH_THREADS', defaultSearchThreads(processes), 1, 256),
    searchQueue: integer(env, 'SEARCH_QUEUE', d.searchQueue, 0, 100_000),
    searchTimeoutMs: integer(env, 'SEARCH_TIMEOUT_MS', d.searchTimeoutMs, 10, 600_000),
    passwordHashing: d.passwordHashing,
  }
}
