// Typed defaults plus one parse function over an environment-like object (docs/configuration.md).
import { availableParallelism } from 'node:os'

/** Half the cores, shared by the `workers` processes: searches at their budget leave the rest to the main threads. */
export function defaultSearchThreads(workers: number): number {
  return Math.max(1, Math.floor(availableParallelism() / (2 * workers)))
}

const MB = 1024 * 1024

interface Setting<T> {
  fallback: T
  read: (env: Env) => T
}
const setting = <T>(fallback: T, read: (env: Env, fallback: T) => T): Setting<T> => ({
  fallback,
  read: (env) => read(env, fallback),
})
const int = (name: string, fallback: number, min: number, max: number) =>
  setting(fallback, (env) => integer(env, name, fallback, min, max))
const flag = (name: string, fallback: boolean) => setting(fallback, (env) => boolean(env, name, fallback))
const text = (name: string, fallback: string) => setting(fallback, (env) => env[name]?.trim() || fallback)
const workersOf = (env: Env, fallback: number) =>
  env.WORKERS?.trim().toLowerCase() === 'auto'
    ? Math.min(availableParallelism(), MAX_WORKERS)
    : integer(env, 'WORKERS', fallback, 1, MAX_WORKERS)

/** Every setting, in the order parseConfig checks them. */
const SETTINGS = {
  port: int('PORT', 8000, 0, 65535),
  host: text('HOST', '0.0.0.0'),
  dataDir: text('DATA_DIR', './data'),
  /** Undefined: use (or create) the secret file in `dataDir`. */
  accessTokenSecret: setting<string | undefined>(undefined, (env) => env.ACCESS_TOKEN_SECRET || undefined),
  logLevel: setting('info', (env, fallback) => env.LOG_LEVEL?.trim().toLowerCase() || fallback),
  bodyLimit: setting(MB, (env, fallback) => byteSize(env, 'BODY_LIMIT', fallback, [1024, 64 * MB, '1kb and 64mb'])),
  /** Undefined: BODY_DRAIN_FACTOR × bodyLimit (unread-body.ts). */
  bodyDrainLimit: setting<number | undefined>(undefined, (env, fallback) =>
    byteSize(env, 'BODY_DRAIN_LIMIT', fallback, [0, 1024 * MB, '0 and 1024mb']),
  ),
  requestTimeoutMs: int('REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
  connectionTimeoutMs: int('CONNECTION_TIMEOUT_MS', 60_000, 100, 3_600_000),
  trustProxy: flag('TRUST_PROXY', false),
  sqliteSynchronous: setting<'FULL' | 'NORMAL'>('FULL', (env, fallback) =>
    oneOf(env, 'SQLITE_SYNCHRONOUS', ['FULL', 'NORMAL'] as const, fallback),
  ),
  listingCacheMb: int('LISTING_CACHE_MB', 16, 0, 65_536),
  storeCache: flag('STORE_CACHE', true),
  bruteForce: {
    enabled: flag('BRUTE_FORCE_PROTECTION', true),
    windowSeconds: int('BRUTE_FORCE_WINDOW_SECONDS', 15 * 60, 1, 86_400 * 7),
    pairLimit: int('LOGIN_FAILURES_PER_ACCOUNT_AND_CLIENT', 10, 1, 1_000_000),
    emailLimit: int('LOGIN_FAILURES_PER_ACCOUNT', 50, 1, 1_000_000),
    ipLimit: int('LOGIN_FAILURES_PER_CLIENT', 100, 1, 1_000_000),
    sessionLimit: int('PASSWORD_FAILURES_PER_SESSION', 5, 1, 1000),
    registrationIpLimit: int('DUPLICATE_REGISTRATIONS_PER_CLIENT', 50, 1, 1_000_000),
    registrationsPerClient: int('REGISTRATIONS_PER_CLIENT', 300, 1, 1_000_000),
    registrationWindowSeconds: int('REGISTRATION_WINDOW_SECONDS', 3600, 1, 86_400 * 7),
  },
  /** What one account may keep (OWASP API4:2023); 0 switches a limit off. */
  noteQuota: {
    notes: int('MAX_NOTES_PER_ACCOUNT', 50_000, 0, 1_000_000_000),
    megabytes: int('MAX_NOTE_MB_PER_ACCOUNT', 200, 0, 1_048_576),
  },
  /** What a person's deleted notes and earlier texts are kept for (docs/history.md); 0 keeps none. */
  retention: {
    trashDays: int('TRASH_DAYS', 30, 0, 36_500),
    historyRevisions: int('HISTORY_REVISIONS', 50, 0, 10_000),
    historyDays: int('HISTORY_DAYS', 90, 0, 36_500),
    /** How long the change feed remembers a note that left the listing: a device away longer lists all notes again (docs/sync.md). */
    changesDays: int('CHANGES_DAYS', 90, 1, 36_500),
  },
  registration: setting<'open' | 'closed'>('open', (env, fallback) =>
    oneOf(env, 'REGISTRATION', ['open', 'closed'] as const, fallback),
  ),
  minPasswordLength: int('MIN_PASSWORD_LENGTH', 0, 0, 1024),
  minFreeDiskMb: int('MIN_FREE_DISK_MB', 100, 0, 1_048_576),
  metrics: {
    /** Undefined: /metrics is served by the API's own port. */
    port: setting<number | undefined>(undefined, metricsPort),
    enabled: flag('METRICS_ENABLED', true),
    host: setting('0.0.0.0', (env, fallback) => env.METRICS_HOST?.trim() || env.HOST?.trim() || fallback),
  },
  /** Live update streams, per process (docs/sync.md, "Limits"). */
  streams: {
    perAccount: int('STREAMS_PER_ACCOUNT', 10, 1, 10_000),
    perInstance: int('STREAMS_PER_INSTANCE', 10_000, 1, 1_000_000),
    bufferBytes: setting(MB, (env, fallback) =>
      byteSize(env, 'STREAM_BUFFER_BYTES', fallback, [16 * 1024, 64 * MB, '16kb and 64mb']),
    ),
    heartbeatMs: int('STREAM_HEARTBEAT_MS', 15_000, 100, 600_000),
    retryMs: int('STREAM_RETRY_MS', 2000, 0, 600_000),
  },
  /** Pictures and files in notes (docs/attachments.md). */
  attachments: {
    /** The largest file one upload may carry: past it, 413 before the rest is read. */
    megabytes: int('MAX_ATTACHMENT_MB', 25, 1, 1_048_576),
    /** What one account's files may hold in all; 0: no limit. */
    megabytesPerAccount: int('MAX_ATTACHMENT_MB_PER_ACCOUNT', 1024, 0, 1_073_741_824),
    /** How long a file no note links to any more is kept before the sweep erases it. */
    graceDays: int('ATTACHMENT_GRACE_DAYS', 7, 0, 36_500),
    /** Where the bytes go; undefined: disk with SQLite, PostgreSQL with DATABASE_URL, S3 when a bucket is named. */
    storage: setting<'disk' | 'postgresql' | 's3' | undefined>(undefined, (env) =>
      env.ATTACHMENTS_STORAGE?.trim()
        ? oneOf(env, 'ATTACHMENTS_STORAGE', ['disk', 'postgresql', 's3'] as const, 'disk')
        : undefined,
    ),
    s3: {
      /** Undefined: AWS's own endpoint for the region. */
      endpoint: setting<string | undefined>(undefined, (env) => url(env, 'ATTACHMENTS_S3_ENDPOINT', ['https', 'http'])),
      bucket: setting<string | undefined>(undefined, (env) => env.ATTACHMENTS_S3_BUCKET?.trim() || undefined),
      region: text('ATTACHMENTS_S3_REGION', 'us-east-1'),
      /** Undefined: the AWS SDK's own chain (environment, instance role). Never logged. */
      accessKeyId: setting<string | undefined>(
        undefined,
        (env) => env.ATTACHMENTS_S3_ACCESS_KEY_ID?.trim() || undefined,
      ),
      secretAccessKey: setting<string | undefined>(
        undefined,
        (env) => env.ATTACHMENTS_S3_SECRET_ACCESS_KEY || undefined,
      ),
      /** Most S3-compatible servers (MinIO, Ceph, Garage) want path-style addresses. */
      forcePathStyle: flag('ATTACHMENTS_S3_FORCE_PATH_STYLE', true),
    },
  },
  /** The largest file POST /import-notes takes (docs/migration.md); the command line's import has no limit. */
  importMegabytes: int('MAX_IMPORT_MB', 1024, 1, 1_048_576),
  /** Undefined selects the embedded SQLite store. */
  databaseUrl: setting<string | undefined>(undefined, (env) => url(env, 'DATABASE_URL', ['postgres', 'postgresql'])),
  databasePoolSize: int('DATABASE_POOL_SIZE', 10, 1, 1000),
  databaseStatementTimeoutMs: int('DATABASE_STATEMENT_TIMEOUT_MS', 5000, 100, 3_600_000),
  databaseConnectTimeoutMs: int('DATABASE_CONNECT_TIMEOUT_MS', 5000, 100, 600_000),
  redisUrl: setting<string | undefined>(undefined, (env) => url(env, 'REDIS_URL', ['redis', 'rediss'])),
  workers: setting(1, workersOf),
  searchThreads: setting(defaultSearchThreads(1), (env) =>
    integer(env, 'SEARCH_THREADS', defaultSearchThreads(workersOf(env, 1)), 1, 256),
  ),
  searchQueue: int('SEARCH_QUEUE', 64, 0, 100_000),
  searchTimeoutMs: int('SEARCH_TIMEOUT_MS', 2000, 10, 600_000),
  /** Not read from the environment: OWASP's minimum for argon2id; tests not about hashing lower it. */
  passwordHashing: setting({ memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 }, (_env, fallback) => fallback),
}

interface Settings {
  [key: string]: Setting<unknown> | Settings
}
type Values<S> = { [K in keyof S]: S[K] extends Setting<infer T> ? T : Values<S[K]> }

function valuesOf<S extends Settings>(settings: S, value: (setting: Setting<unknown>) => unknown): Values<S> {
  const entries = Object.entries(settings).map(([key, s]) => [
    key,
    'read' in s ? value(s as Setting<unknown>) : valuesOf(s, value),
  ])
  return Object.fromEntries(entries) as Values<S>
}

export type Config = Values<typeof SETTINGS>
export const defaultConfig: Config = valuesOf(SETTINGS, (s) => s.fallback)
export type BruteForceConfig = Config['bruteForce']
export type NoteQuotaConfig = Config['noteQuota']
export type RetentionConfig = Config['retention']
export type PasswordHashingConfig = Config['passwordHashing']
export type AttachmentConfig = Config['attachments']

/** A bad environment variable: the message names it, so start-up can print one clear line. */
export class ConfigError extends Error {
  override name = 'ConfigError'
  constructor(
    readonly variable: string,
    detail: string,
  ) {
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

function metricsPort(env: Env): number | undefined {
  const raw = env.METRICS_PORT?.trim()
  const port = raw === undefined || raw === '' ? undefined : integer(env, 'METRICS_PORT', 0, 1, 65535)
  const apiPort = integer(env, 'PORT', SETTINGS.port.fallback, 0, 65535)
  // The second listener would fail at start-up with EADDRINUSE; say why now.
  if (port !== undefined && port === apiPort) {
    throw new ConfigError(
      'METRICS_PORT',
      `must differ from PORT (${apiPort}); leave it unset to serve /metrics on PORT`,
    )
  }
  return port
}

function url(env: Env, name: string, schemes: readonly string[]): string | undefined {
  const raw = env[name]?.trim()
  if (raw === undefined || raw === '') return undefined
  // The value itself is never echoed: it may carry a password.
  if (!URL.canParse(raw))
    throw new ConfigError(name, `must be a URL such as ${schemes[0]}://host:port/..., got something unparsable`)
  const { protocol } = new URL(raw)
  if (!schemes.includes(protocol.slice(0, -1))) {
    throw new ConfigError(name, `must start with ${schemes.map((s) => `${s}://`).join(' or ')}, got "${protocol}//"`)
  }
  return raw
}

/** Largest WORKERS value: more processes only add contention on any machine we target. */
export const MAX_WORKERS = 64

/** Throws ConfigError naming the first bad variable. */
export function parseConfig(env: Env): Config {
  const secretBytes = Buffer.byteLength(env.ACCESS_TOKEN_SECRET ?? '', 'utf8')
  if (secretBytes > 0 && secretBytes < MIN_SECRET_BYTES) {
    const unset = 'unset it to have one generated in the data directory'
    throw new ConfigError(
      'ACCESS_TOKEN_SECRET',
      `must be at least ${MIN_SECRET_BYTES} bytes long (got ${secretBytes}); ${unset}`,
    )
  }
  const logLevel = SETTINGS.logLevel.read(env)
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`)
  if (SETTINGS.databaseUrl.read(env) !== undefined && secretBytes === 0) {
    // A generated secret lives in one instance's DATA_DIR: tokens of one would fail on the others.
    throw new ConfigError(
      'ACCESS_TOKEN_SECRET',
      'must be set when DATABASE_URL is set: every instance on one database must share it',
    )
  }
  SETTINGS.workers.read(env)
  const config = valuesOf(SETTINGS, (s) => s.read(env))
  if (config.attachments.storage === 's3' && config.attachments.s3.bucket === undefined) {
    throw new ConfigError('ATTACHMENTS_S3_BUCKET', 'must be set when ATTACHMENTS_STORAGE is s3')
  }
  if (config.attachments.storage === 'postgresql' && config.databaseUrl === undefined) {
    throw new ConfigError('ATTACHMENTS_STORAGE', 'can be postgresql only when DATABASE_URL is set')
  }
  return config
}
