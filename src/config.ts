// Typed configuration: defaults plus one parse function over an environment-like object.
// Tests build configs with `parseConfig({...})` or `{...defaultConfig, ...}`; nothing here reads
// `process.env` except the CLI, which passes it in.
import { availableParallelism } from 'node:os'

export interface BruteForceConfig {
  /** Whether failed logins, duplicate and successful registrations are counted and throttled at all. */
  enabled: boolean
  /** Length of the counting window, in seconds. */
  windowSeconds: number
  /** Failed logins allowed per (email, client address) pair inside one window. */
  pairLimit: number
  /** Failed logins allowed per email, from any address. */
  emailLimit: number
  /** Failed logins allowed per client address, for any email. */
  ipLimit: number
  /**
   * Wrong passwords a signed-in session may send to change-password and delete-account; the one
   * that uses the last ends the session. Counted apart from the login's limits.
   */
  sessionLimit: number
  /** "User already exists" answers allowed per client address. */
  registrationIpLimit: number
  /** Accounts one client address may register inside one registration window. */
  registrationsPerClient: number
  /** Length of the window of `registrationsPerClient`, in seconds. */
  registrationWindowSeconds: number
}

/**
 * What one account may keep (OWASP API4:2023, unrestricted resource consumption). The store
 * enforces both atomically with the write; 0 switches a limit off.
 */
export interface NoteQuotaConfig {
  /** Notes one account keeps at most. */
  notes: number
  /** UTF-8 bytes of title, content and tags one account keeps at most, in MB (2^20 bytes). */
  megabytes: number
}

/** argon2id cost of new password hashes; a stored hash carries its own, which verifying reads. */
export interface PasswordHashingConfig {
  /** KiB of memory per hash. */
  memoryCost: number
  /** Passes over that memory. */
  timeCost: number
  parallelism: number
}

/** Prometheus metrics (see plugins/metrics.ts). */
export interface MetricsConfig {
  /** false: nothing is collected and /metrics does not exist. */
  enabled: boolean
  /** Undefined: /metrics is served by the API's own port. Otherwise only on this port. */
  port: number | undefined
  /** Address of the separate metrics listener (only used with `port`). */
  host: string
}

export interface Config {
  port: number
  host: string
  dataDir: string
  /** Undefined means: use (or create) the secret file in `dataDir`. */
  accessTokenSecret: string | undefined
  logLevel: string
  bodyLimit: number
  /**
   * Largest body still read to its end (and discarded) before an answer given without reading it
   * (413, 415, 401), so the client reads the answer (unread-body.ts); undefined:
   * BODY_DRAIN_FACTOR × bodyLimit.
   */
  bodyDrainLimit: number | undefined
  /** Longest time a client may take to send one whole request (slow-loris protection). */
  requestTimeoutMs: number
  /** Longest time an idle socket is kept open. */
  connectionTimeoutMs: number
  /** Trust X-Forwarded-For from a reverse proxy when computing the client address. */
  trustProxy: boolean
  /** SQLite `synchronous` pragma: FULL survives power loss, NORMAL only process crashes. */
  sqliteSynchronous: 'FULL' | 'NORMAL'
  /** Megabytes of users' listings each process keeps in memory (src/store/cache); 0 turns the listing cache off. */
  listingCacheMb: number
  /** false: the store keeps nothing in memory (no listings, accounts or sessions; docs/caching.md). */
  storeCache: boolean
  bruteForce: BruteForceConfig
  noteQuota: NoteQuotaConfig
  /** `closed`: POST /create-account answers 403 (accounts come from the operator's import). */
  registration: 'open' | 'closed'
  /**
   * Shortest password POST /create-account accepts, in characters; 0 accepts any non-empty one,
   * as the contract does. change-password asks for at least NEW_PASSWORD_MIN_LENGTH whatever this is.
   */
  minPasswordLength: number
  /**
   * SQLite only: create-account and note writes answer 507 while DATA_DIR's file system has less
   * than this many MB free; 0 switches the check off.
   */
  minFreeDiskMb: number
  metrics: MetricsConfig
  /** PostgreSQL connection URL; undefined selects the embedded SQLite store. */
  databaseUrl: string | undefined
  /** Most PostgreSQL connections one process opens. */
  databasePoolSize: number
  /** Longest a PostgreSQL statement may run before it is cancelled (answered 503). */
  databaseStatementTimeoutMs: number
  /** Longest wait for a new PostgreSQL connection before a request is answered 503. */
  databaseConnectTimeoutMs: number
  /** Redis URL for brute-force counters shared by instances; undefined keeps them in memory. */
  redisUrl: string | undefined
  /** Server processes sharing the port (`serve --workers N` overrides it). */
  workers: number
  /** Worker threads that run search patterns, per process (services/search-pool.ts). */
  searchThreads: number
  /** Searches that may be under way beyond searchThreads, waiting for one; one more is answered 503. */
  searchQueue: number
  /** Longest a search may match (400 past it), and longest it may wait for a thread (503). */
  searchTimeoutMs: number
  /**
   * Not read from the environment: a deployment always hashes at the OWASP minimum below. Tests
   * that are not about hashing lower it (test/support/harness.ts), since every registration of
   * the suites pays it.
   */
  passwordHashing: PasswordHashingConfig
}

/**
 * Search threads of one process by default: half the cores available, shared by the `workers`
 * processes, at least one. Half, so that patterns that run to their budget leave the other half
 * of the machine to the main threads, which serve every other request.
 */
export function defaultSearchThreads(workers: number): number {
  return Math.max(1, Math.floor(availableParallelism() / (2 * workers)))
}

export const defaultConfig: Config = {
  port: 8000,
  host: '0.0.0.0',
  dataDir: './data',
  accessTokenSecret: undefined,
  logLevel: 'info',
  bodyLimit: 1024 * 1024,
  bodyDrainLimit: undefined,
  requestTimeoutMs: 30_000,
  connectionTimeoutMs: 60_000,
  trustProxy: false,
  sqliteSynchronous: 'FULL',
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
  noteQuota: { notes: 50_000, megabytes: 200 },
  registration: 'open',
  minPasswordLength: 0,
  minFreeDiskMb: 100,
  metrics: { enabled: true, port: undefined, host: '0.0.0.0' },
  databaseUrl: undefined,
  databasePoolSize: 10,
  databaseStatementTimeoutMs: 5000,
  databaseConnectTimeoutMs: 5000,
  redisUrl: undefined,
  workers: 1,
  searchThreads: defaultSearchThreads(1),
  searchQueue: 64,
  searchTimeoutMs: 2000,
  // OWASP's minimum for argon2id, m = 19 MiB, t = 2, p = 1:
  // https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html#argon2id
  passwordHashing: { memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 },
}

/** A bad environment variable: the message names it, so start-up can print one clear line. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`${variable}: ${detail}`)
    this.name = 'ConfigError'
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
  if (value < min || value > max) {
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`)
  }
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
  const factor = unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 * 1024 : 1
  const value = Number(m[1]) * factor
  if (value < min || value > max) throw new ConfigError(name, `must be between ${range}`)
  return value
}

const MB = 1024 * 1024
const BODY_LIMIT_RANGE: [number, number, string] = [1024, 64 * MB, '1kb and 64mb']
/** 0 (or anything up to BODY_LIMIT) turns draining off; 1 GiB is 16 times the largest BODY_LIMIT. */
const BODY_DRAIN_LIMIT_RANGE: [number, number, string] = [0, 1024 * MB, '0 and 1024mb']

function metricsConfig(env: Env, apiHost: string): MetricsConfig {
  const raw = env.METRICS_PORT?.trim()
  const port = raw === undefined || raw === '' ? undefined : integer(env, 'METRICS_PORT', 0, 1, 65535)
  const apiPort = integer(env, 'PORT', defaultConfig.port, 0, 65535)
  // The same port would make the second listener fail at start-up with EADDRINUSE; say why now.
  if (port !== undefined && port === apiPort) {
    throw new ConfigError('METRICS_PORT', `must differ from PORT (${apiPort}); leave it unset to serve /metrics on PORT`)
  }
  return {
    enabled: boolean(env, 'METRICS_ENABLED', defaultConfig.metrics.enabled),
    port,
    host: env.METRICS_HOST?.trim() || apiHost,
  }
}

/** A URL with one of the given schemes, or undefined when unset. */
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

/** Largest WORKERS value: more processes than this only adds contention on any machine we target. */
export const MAX_WORKERS = 64

/** `WORKERS`: a count, or `auto` for one process per core available. */
function workers(env: Env, name: string, fallback: number): number {
  if (env[name]?.trim().toLowerCase() === 'auto') return Math.min(availableParallelism(), MAX_WORKERS)
  return integer(env, name, fallback, 1, MAX_WORKERS)
}

/** Parses the environment into a Config; throws ConfigError naming the first bad variable. */
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
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`)
  }
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres', 'postgresql'])
  if (databaseUrl !== undefined && (secret === undefined || secret === '')) {
    // A generated secret lives in one instance's DATA_DIR; instances on one database must share
    // it, or a token issued by one is refused by the others.
    throw new ConfigError('ACCESS_TOKEN_SECRET', 'must be set when DATABASE_URL is set: every instance on one database must share it')
  }
  const host = env.HOST?.trim() || d.host
  const dataDir = env.DATA_DIR?.trim() || d.dataDir
  const processes = workers(env, 'WORKERS', d.workers)
  return {
    port: integer(env, 'PORT', d.port, 0, 65535),
    host,
    dataDir,
    accessTokenSecret: secret === '' ? undefined : secret,
    logLevel,
    bodyLimit: byteSize(env, 'BODY_LIMIT', d.bodyLimit, BODY_LIMIT_RANGE),
    bodyDrainLimit: byteSize(env, 'BODY_DRAIN_LIMIT', d.bodyDrainLimit, BODY_DRAIN_LIMIT_RANGE),
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
