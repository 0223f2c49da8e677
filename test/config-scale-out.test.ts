// The scale-out settings of parseConfig: DATABASE_URL (and the secret it requires), pool size,
// timeouts, REDIS_URL and WORKERS. Each bad value throws a ConfigError naming its variable.
import assert from 'node:assert/strict'
import { availableParallelism } from 'node:os'
import { describe, it } from 'node:test'
import { ConfigError, MAX_WORKERS, defaultConfig, parseConfig } from '../src/config.js'
import { storeKind } from '../src/store/open.js'

const SECRET = 'x'.repeat(32)

function failure(env: Record<string, string>): ConfigError {
  try {
    parseConfig(env)
  } catch (err) {
    assert.ok(err instanceof ConfigError)
    return err
  }
  assert.fail(`accepted ${JSON.stringify(env)}`)
}

describe('scale-out configuration', () => {
  it('defaults to SQLite, memory counters and one process', () => {
    const config = parseConfig({})
    assert.equal(config.databaseUrl, undefined)
    assert.equal(config.redisUrl, undefined)
    assert.equal(config.workers, 1)
    assert.equal(config.databasePoolSize, defaultConfig.databasePoolSize)
    assert.equal(storeKind(config), 'sqlite')
  })

  it('selects PostgreSQL with DATABASE_URL and reads its settings', () => {
    const config = parseConfig({
      DATABASE_URL: 'postgresql://app:pw@db.internal:6432/notes',
      ACCESS_TOKEN_SECRET: SECRET,
      DATABASE_POOL_SIZE: '25',
      DATABASE_STATEMENT_TIMEOUT_MS: '2500',
      DATABASE_CONNECT_TIMEOUT_MS: '1500',
      REDIS_URL: 'rediss://cache:6380/2',
      WORKERS: '3',
    })
    assert.equal(storeKind(config), 'postgresql')
    assert.equal(config.databaseUrl, 'postgresql://app:pw@db.internal:6432/notes')
    assert.equal(config.databasePoolSize, 25)
    assert.equal(config.databaseStatementTimeoutMs, 2500)
    assert.equal(config.databaseConnectTimeoutMs, 1500)
    assert.equal(config.redisUrl, 'rediss://cache:6380/2')
    assert.equal(config.workers, 3)
  })

  it('requires ACCESS_TOKEN_SECRET with DATABASE_URL, since instances must share it', () => {
    const err = failure({ DATABASE_URL: 'postgres://localhost/notes' })
    assert.equal(err.variable, 'ACCESS_TOKEN_SECRET')
    assert.match(err.message, /must be set when DATABASE_URL is set/)
  })

  it('takes WORKERS=auto as one process per core', () => {
    assert.equal(parseConfig({ WORKERS: 'auto' }).workers, Math.min(availableParallelism(), MAX_WORKERS))
  })

  it('names the variable of each bad value, never echoing a URL that may hold a password', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ DATABASE_URL: 'mysql://u:secretpw@h/db', ACCESS_TOKEN_SECRET: SECRET }, 'DATABASE_URL'],
      [{ DATABASE_URL: 'not a url secretpw', ACCESS_TOKEN_SECRET: SECRET }, 'DATABASE_URL'],
      [{ REDIS_URL: 'http://u:secretpw@h' }, 'REDIS_URL'],
      [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
      [{ DATABASE_POOL_SIZE: 'ten' }, 'DATABASE_POOL_SIZE'],
      [{ DATABASE_STATEMENT_TIMEOUT_MS: '5s' }, 'DATABASE_STATEMENT_TIMEOUT_MS'],
      [{ DATABASE_CONNECT_TIMEOUT_MS: '10' }, 'DATABASE_CONNECT_TIMEOUT_MS'],
      [{ WORKERS: '0' }, 'WORKERS'],
      [{ WORKERS: String(MAX_WORKERS + 1) }, 'WORKERS'],
      [{ WORKERS: 'many' }, 'WORKERS'],
    ]
    for (const [env, variable] of cases) {
      const err = failure(env)
      assert.equal(err.variable, variable, JSON.stringify(env))
      assert.ok(err.message.startsWith(`${variable}: `))
      assert.doesNotMatch(err.message, /secretpw/)
    }
  })
})
