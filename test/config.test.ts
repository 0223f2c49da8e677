// parseConfig: defaults, every variable, and one clear error naming a bad variable.
import assert from 'node:assert/strict'
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
  })

  it('always hashes passwords at the OWASP minimum for argon2id: no variable lowers it', () => {
    const owasp = { memoryCost: 19 * 1024, timeCost: 2, parallelism: 1 }
    assert.deepEqual(parseConfig({}).passwordHashing, owasp)
    assert.deepEqual(parseConfig({ ARGON2_MEMORY_COST: '1024', PASSWORD_HASHING: 'cheap', LOG_LEVEL: 'warn' }).passwordHashing, owasp)
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
      REQUEST_TIMEOUT_MS: '5000',
      CONNECTION_TIMEOUT_MS: '7000',
      TRUST_PROXY: 'yes',
      SQLITE_SYNCHRONOUS: 'normal',
      LISTING_CACHE_MB: '0',
      BRUTE_FORCE_PROTECTION: 'off',
      BRUTE_FORCE_WINDOW_SECONDS: '60',
      LOGIN_FAILURES_PER_ACCOUNT_AND_CLIENT: '3',
      LOGIN_FAILURES_PER_ACCOUNT: '4',
      LOGIN_FAILURES_PER_CLIENT: '5',
      DUPLICATE_REGISTRATIONS_PER_CLIENT: '6',
      METRICS_ENABLED: 'true',
      METRICS_PORT: '9100',
      METRICS_HOST: '127.0.0.2',
      DATABASE_URL: 'postgres://u@db.example:5432/notes',
      DATABASE_POOL_SIZE: '7',
      DATABASE_STATEMENT_TIMEOUT_MS: '1500',
      DATABASE_CONNECT_TIMEOUT_MS: '2500',
      REDIS_URL: 'redis://cache.example:6379/2',
      WORKERS: '3',
    })
    assert.deepEqual(config, {
      port: 9001,
      host: '127.0.0.1',
      dataDir: '/tmp/x',
      accessTokenSecret: secret,
      logLevel: 'warn',
      bodyLimit: 2 * 1024 * 1024,
      requestTimeoutMs: 5000,
      connectionTimeoutMs: 7000,
      trustProxy: true,
      sqliteSynchronous: 'NORMAL',
      listingCacheMb: 0,
      bruteForce: { enabled: false, windowSeconds: 60, pairLimit: 3, emailLimit: 4, ipLimit: 5, registrationIpLimit: 6 },
      metrics: { enabled: true, port: 9100, host: '127.0.0.2' },
      databaseUrl: 'postgres://u@db.example:5432/notes',
      databasePoolSize: 7,
      databaseStatementTimeoutMs: 1500,
      databaseConnectTimeoutMs: 2500,
      redisUrl: 'redis://cache.example:6379/2',
      workers: 3,
      passwordHashing: defaultConfig.passwordHashing,
    })
  })

  it('accepts plain byte counts and kb for BODY_LIMIT', () => {
    assert.equal(parseConfig({ BODY_LIMIT: '4096' }).bodyLimit, 4096)
    assert.equal(parseConfig({ BODY_LIMIT: '512kb' }).bodyLimit, 512 * 1024)
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
  ]
  for (const [env, variable] of bad) {
    it(`refuses ${JSON.stringify(env)} naming ${variable}`, () => {
      assert.throws(
        () => parseConfig(env),
        (err: unknown) => err instanceof ConfigError && err.variable === variable && err.message.startsWith(`${variable}: `),
      )
    })
  }

  it('says how long the secret must be', () => {
    assert.throws(() => parseConfig({ ACCESS_TOKEN_SECRET: 'x'.repeat(31) }), /at least 32 bytes/)
    assert.equal(parseConfig({ ACCESS_TOKEN_SECRET: 'x'.repeat(32) }).accessTokenSecret, 'x'.repeat(32))
  })
})
