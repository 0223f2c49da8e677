// parseConfig: defaults, every variable, and one clear error naming a bad variable.
import assert from 'node:assert/strict'
import { availableParallelism } from 'node:os'
import { describe, it } from 'node:test'
import { ConfigError, defaultConfig, parseConfig } from '../src/config.js'

describe('parseConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    assert.deepEqual(parseConfig({}), defaultConfig)
    assert.equal(defaultConfig.port, 8000)
    assert.equal(defaultConfig.host, '0.0.0.0')
    assert.equal(defaultConfig.dataDir, './data')
    assert.equal(defaultConfig.bodyLimit, 1024 * 1024)
    assert.equal(defaultConfig.sqliteSynchronous, 'FULL')
    assert.deepEqual(
      [defaultConfig.bruteForce.pairLimit, defaultConfig.bruteForce.emailLimit, defaultConfig.bruteForce.ipLimit],
      [10, 50, 100],
    )
    assert.equal(defaultConfig.bruteForce.windowSeconds, 900)
    assert.equal(defaultConfig.bruteForce.registrationIpLimit, 50)
    assert.equal(defaultConfig.bruteForce.registrationsPerClient, 300)
    assert.equal(defaultConfig.bruteForce.registrationWindowSeconds, 3600)
    assert.deepEqual(defaultConfig.noteQuota, { notes: 50_000, megabytes: 200 })
    assert.equal(defaultConfig.registration, 'open')
    assert.equal(defaultConfig.minFreeDiskMb, 100)
  })

  it('always hashes passwords at the OWASP minimum for argon2id: no variable lowers it', () => {
    const owasp = { memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 }
    assert.deepEqual(parseConfig({}).passwordHashing, owasp)
    assert.deepEqual(
      parseConfig({ ARGON2_MEMORY_COST: '1024', PASSWORD_HASHING: 'cheap', LOG_LEVEL: 'warn' }).passwordHashing,
      owasp,
    )
  })

  it('reads every variable', () => {
    const secret = 's'.repeat(32)
    const config = parseConfig({
      PORT: '9001',
      HOST: '127.0.0.1',
      DATA_DIR: '/tmp/x',
      ACCESS_TOKEN_SECRET: secret,
      LOG_LEVEL: 'WARN',
      BODY_LIMIT: '2mb',
      BODY_DRAIN_LIMIT: '48mb',
      REQUEST_TIMEOUT_MS: '5000',
      CONNECTION_TIMEOUT_MS: '7000',
      TRUST_PROXY: 'yes',
      SQLITE_SYNCHRONOUS: 'normal',
      LISTING_CACHE_MB: '0',
      STORE_CACHE: 'off',
      BRUTE_FORCE_PROTECTION: 'off',
      BRUTE_FORCE_WINDOW_SECONDS: '60',
      LOGIN_FAILURES_PER_ACCOUNT_AND_CLIENT: '3',
      LOGIN_FAILURES_PER_ACCOUNT: '4',
      LOGIN_FAILURES_PER_CLIENT: '5',
      PASSWORD_FAILURES_PER_SESSION: '7',
      DUPLICATE_REGISTRATIONS_PER_CLIENT: '6',
      REGISTRATIONS_PER_CLIENT: '8',
      REGISTRATION_WINDOW_SECONDS: '120',
      MAX_NOTES_PER_ACCOUNT: '1000',
      MAX_NOTE_MB_PER_ACCOUNT: '0',
      TRASH_DAYS: '0',
      HISTORY_REVISIONS: '7',
      HISTORY_DAYS: '14',
      CHANGES_DAYS: '7',
      REGISTRATION: 'Closed',
      MIN_PASSWORD_LENGTH: '12',
      MIN_FREE_DISK_MB: '0',
      METRICS_ENABLED: 'true',
      METRICS_PORT: '9100',
      METRICS_HOST: '127.0.0.2',
      DATABASE_URL: 'postgres://u@db.example:5432/notes',
      DATABASE_POOL_SIZE: '7',
      DATABASE_STATEMENT_TIMEOUT_MS: '1500',
      DATABASE_CONNECT_TIMEOUT_MS: '2500',
      REDIS_URL: 'redis://cache.example:6379/2',
      WORKERS: '3',
      SEARCH_THREADS: '5',
      SEARCH_QUEUE: '0',
      SEARCH_TIMEOUT_MS: '750',
      STREAMS_PER_ACCOUNT: '3',
      STREAMS_PER_INSTANCE: '500',
      STREAM_BUFFER_BYTES: '256kb',
      STREAM_HEARTBEAT_MS: '20000',
      STREAM_RETRY_MS: '5000',
      MAX_ATTACHMENT_MB: '10',
      MAX_ATTACHMENT_MB_PER_ACCOUNT: '0',
      ATTACHMENT_GRACE_DAYS: '3',
      ATTACHMENTS_STORAGE: 'S3',
      ATTACHMENTS_S3_ENDPOINT: 'http://127.0.0.1:9000',
      ATTACHMENTS_S3_BUCKET: 'notes-files',
      ATTACHMENTS_S3_REGION: 'eu-central-1',
      ATTACHMENTS_S3_ACCESS_KEY_ID: 'key-id',
      ATTACHMENTS_S3_SECRET_ACCESS_KEY: 'key secret',
      ATTACHMENTS_S3_FORCE_PATH_STYLE: 'false',
      MAX_IMPORT_MB: '64',
    })
    assert.deepEqual(config, {
      port: 9001,
      host: '127.0.0.1',
      dataDir: '/tmp/x',
      accessTokenSecret: secret,
      logLevel: 'warn',
      bodyLimit: 2 * 1024 * 1024,
      bodyDrainLimit: 48 * 1024 * 1024,
      requestTimeoutMs: 5000,
      connectionTimeoutMs: 7000,
      trustProxy: true,
      sqliteSynchronous: 'NORMAL',
      listingCacheMb: 0,
      storeCache: false,
      bruteForce: {
        enabled: false,
        windowSeconds: 60,
        pairLimit: 3,
        emailLimit: 4,
        ipLimit: 5,
        sessionLimit: 7,
        registrationIpLimit: 6,
        registrationsPerClient: 8,
        registrationWindowSeconds: 120,
      },
      noteQuota: { notes: 1000, megabytes: 0 },
      retention: { trashDays: 0, historyRevisions: 7, historyDays: 14, changesDays: 7 },
      registration: 'closed',
      minPasswordLength: 12,
      minFreeDiskMb: 0,
      metrics: { enabled: true, port: 9100, host: '127.0.0.2' },
      streams: { perAccount: 3, perInstance: 500, bufferBytes: 256 * 1024, heartbeatMs: 20_000, retryMs: 5000 },
      attachments: {
        megabytes: 10,
        megabytesPerAccount: 0,
        graceDays: 3,
        storage: 's3',
        s3: {
          endpoint: 'http://127.0.0.1:9000',
          bucket: 'notes-files',
          region: 'eu-central-1',
          accessKeyId: 'key-id',
          secretAccessKey: 'key secret',
          forcePathStyle: false,
        },
      },
      importMegabytes: 64,
      databaseUrl: 'postgres://u@db.example:5432/notes',
      databasePoolSize: 7,
      databaseStatementTimeoutMs: 1500,
      databaseConnectTimeoutMs: 2500,
      redisUrl: 'redis://cache.example:6379/2',
      workers: 3,
      searchThreads: 5,
      searchQueue: 0,
      searchTimeoutMs: 750,
      passwordHashing: defaultConfig.passwordHashing,
    })
  })

  it('names the attachment setting that cannot work with the others', () => {
    assert.throws(() => parseConfig({ ATTACHMENTS_STORAGE: 's3' }), /^ConfigError: ATTACHMENTS_S3_BUCKET: must be set/)
    assert.throws(
      () => parseConfig({ ATTACHMENTS_STORAGE: 'postgresql' }),
      /^ConfigError: ATTACHMENTS_STORAGE: can be postgresql only/,
    )
    assert.throws(
      () => parseConfig({ ATTACHMENTS_STORAGE: 'ftp' }),
      /^ConfigError: ATTACHMENTS_STORAGE: must be one of disk, postgresql, s3/,
    )
    assert.throws(() => parseConfig({ MAX_ATTACHMENT_MB: '0' }), /^ConfigError: MAX_ATTACHMENT_MB: must be between 1/)
    assert.throws(
      () => parseConfig({ ATTACHMENTS_S3_ENDPOINT: 'ftp://x' }),
      /^ConfigError: ATTACHMENTS_S3_ENDPOINT: must start with https:\/\/ or http:\/\//,
    )
  })

  it('gives search half the cores by default, shared by the WORKERS processes, at least one thread each', () => {
    const cores = availableParallelism()
    assert.equal(defaultConfig.searchThreads, Math.max(1, Math.floor(cores / 2)))
    assert.equal(defaultConfig.searchQueue, 64)
    assert.equal(defaultConfig.searchTimeoutMs, 2000)
    assert.equal(parseConfig({ WORKERS: '2' }).searchThreads, Math.max(1, Math.floor(cores / 4)))
    assert.equal(parseConfig({ WORKERS: 'auto' }).searchThreads, 1)
    assert.equal(parseConfig({ WORKERS: '4', SEARCH_THREADS: '3' }).searchThreads, 3)
  })

  it('accepts plain byte counts and kb for BODY_LIMIT', () => {
    assert.equal(parseConfig({ BODY_LIMIT: '4096' }).bodyLimit, 4096)
    assert.equal(parseConfig({ BODY_LIMIT: '512kb' }).bodyLimit, 512 * 1024)
  })

  it('leaves BODY_DRAIN_LIMIT to 16 × BODY_LIMIT unless set; 0 is allowed (no draining)', () => {
    assert.equal(parseConfig({ BODY_LIMIT: '2mb' }).bodyDrainLimit, undefined)
    assert.equal(parseConfig({ BODY_DRAIN_LIMIT: '0' }).bodyDrainLimit, 0)
    assert.equal(parseConfig({ BODY_DRAIN_LIMIT: '1024mb' }).bodyDrainLimit, 1024 * 1024 * 1024)
  })

  it('treats an empty ACCESS_TOKEN_SECRET as unset', () => {
    assert.equal(parseConfig({ ACCESS_TOKEN_SECRET: '' }).accessTokenSecret, undefined)
  })

  const bad: Array<[Record<string, string>, string]> = [
    [{ PORT: '80a' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PORT: '-1' }, 'PORT'],
    [{ ACCESS_TOKEN_SECRET: 'short' }, 'ACCESS_TOKEN_SECRET'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ BODY_LIMIT: 'huge' }, 'BODY_LIMIT'],
    [{ BODY_LIMIT: '1' }, 'BODY_LIMIT'],
    [{ BODY_DRAIN_LIMIT: '2gb' }, 'BODY_DRAIN_LIMIT'],
    [{ BODY_DRAIN_LIMIT: '1025mb' }, 'BODY_DRAIN_LIMIT'],
    [{ REQUEST_TIMEOUT_MS: '1.5' }, 'REQUEST_TIMEOUT_MS'],
    [{ CONNECTION_TIMEOUT_MS: '0' }, 'CONNECTION_TIMEOUT_MS'],
    [{ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY'],
    [{ SQLITE_SYNCHRONOUS: 'OFF' }, 'SQLITE_SYNCHRONOUS'],
    [{ LISTING_CACHE_MB: '-1' }, 'LISTING_CACHE_MB'],
    [{ LISTING_CACHE_MB: '70000' }, 'LISTING_CACHE_MB'],
    [{ BRUTE_FORCE_PROTECTION: '2' }, 'BRUTE_FORCE_PROTECTION'],
    [{ BRUTE_FORCE_WINDOW_SECONDS: '0' }, 'BRUTE_FORCE_WINDOW_SECONDS'],
    [{ LOGIN_FAILURES_PER_ACCOUNT_AND_CLIENT: 'x' }, 'LOGIN_FAILURES_PER_ACCOUNT_AND_CLIENT'],
    [{ LOGIN_FAILURES_PER_ACCOUNT: '0' }, 'LOGIN_FAILURES_PER_ACCOUNT'],
    [{ LOGIN_FAILURES_PER_CLIENT: '' + 1e9 }, 'LOGIN_FAILURES_PER_CLIENT'],
    [{ DUPLICATE_REGISTRATIONS_PER_CLIENT: 'many' }, 'DUPLICATE_REGISTRATIONS_PER_CLIENT'],
    [{ REGISTRATIONS_PER_CLIENT: '0' }, 'REGISTRATIONS_PER_CLIENT'],
    [{ REGISTRATION_WINDOW_SECONDS: '1h' }, 'REGISTRATION_WINDOW_SECONDS'],
    [{ MAX_NOTES_PER_ACCOUNT: '-5' }, 'MAX_NOTES_PER_ACCOUNT'],
    [{ MAX_NOTES_PER_ACCOUNT: '50k' }, 'MAX_NOTES_PER_ACCOUNT'],
    [{ MAX_NOTE_MB_PER_ACCOUNT: '1.5' }, 'MAX_NOTE_MB_PER_ACCOUNT'],
    [{ MAX_NOTE_MB_PER_ACCOUNT: '2000000' }, 'MAX_NOTE_MB_PER_ACCOUNT'],
    [{ REGISTRATION: 'invite-only' }, 'REGISTRATION'],
    [{ MIN_FREE_DISK_MB: '100mb' }, 'MIN_FREE_DISK_MB'],
    [{ SEARCH_THREADS: '0' }, 'SEARCH_THREADS'],
    [{ SEARCH_THREADS: 'auto' }, 'SEARCH_THREADS'],
    [{ SEARCH_QUEUE: '-1' }, 'SEARCH_QUEUE'],
    [{ SEARCH_TIMEOUT_MS: '5' }, 'SEARCH_TIMEOUT_MS'],
    [{ SEARCH_TIMEOUT_MS: '2s' }, 'SEARCH_TIMEOUT_MS'],
    [{ STREAMS_PER_ACCOUNT: '0' }, 'STREAMS_PER_ACCOUNT'],
    [{ STREAMS_PER_INSTANCE: 'lots' }, 'STREAMS_PER_INSTANCE'],
    [{ STREAM_BUFFER_BYTES: '1kb' }, 'STREAM_BUFFER_BYTES'],
    [{ STREAM_BUFFER_BYTES: 'a lot' }, 'STREAM_BUFFER_BYTES'],
    [{ STREAM_HEARTBEAT_MS: '50' }, 'STREAM_HEARTBEAT_MS'],
    [{ STREAM_RETRY_MS: '-1' }, 'STREAM_RETRY_MS'],
  ]
  for (const [env, variable] of bad) {
    it(`refuses ${JSON.stringify(env)} naming ${variable}`, () => {
      assert.throws(
        () => parseConfig(env),
        (err: unknown) =>
          err instanceof ConfigError && err.variable === variable && err.message.startsWith(`${variable}: `),
      )
    })
  }

  it('switches the quotas and the free-space check off with 0', () => {
    const config = parseConfig({ MAX_NOTES_PER_ACCOUNT: '0', MAX_NOTE_MB_PER_ACCOUNT: '0', MIN_FREE_DISK_MB: '0' })
    assert.deepEqual(config.noteQuota, { notes: 0, megabytes: 0 })
    assert.equal(config.minFreeDiskMb, 0)
    assert.equal(parseConfig({ REGISTRATION: ' OPEN ' }).registration, 'open')
  })

  it('says how long the secret must be', () => {
    assert.throws(() => parseConfig({ ACCESS_TOKEN_SECRET: 'x'.repeat(31) }), /at least 32 bytes/)
    assert.equal(parseConfig({ ACCESS_TOKEN_SECRET: 'x'.repeat(32) }).accessTokenSecret, 'x'.repeat(32))
  })
})
