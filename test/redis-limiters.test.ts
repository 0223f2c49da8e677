// The Redis-backed brute-force counters: shared by two guards (as two instances would be), and
// when Redis goes away the guard keeps answering from memory and the log says so once, then
// says so again when Redis is back.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { defaultConfig } from '../src/config.js'
import { createBruteForceGuard } from '../src/services/brute-force.js'
import { type RedisLimiters, createRedisLimiters } from '../src/services/redis-limiters.js'
import { ContractError } from '../src/errors.js'
import { TEST_REDIS_URL, serviceAvailable } from './support/services.js'
import { type TcpProxy, startTcpProxy, throughProxy } from './support/tcp-proxy.js'

const config = { ...defaultConfig.bruteForce, pairLimit: 3 }

class RecordingLog {
  lines: Array<{ level: string; msg: string }> = []
  info(_obj: object, msg: string) {
    this.lines.push({ level: 'info', msg })
  }
  warn(_obj: object, msg: string) {
    this.lines.push({ level: 'warn', msg })
  }
  /** Resolves when `count` lines matching `re` have been logged. */
  async waitFor(re: RegExp, count = 1): Promise<void> {
    while (this.lines.filter((l) => re.test(l.msg)).length < count) await new Promise((r) => setTimeout(r, 50))
  }
}

async function isThrottled(promise: Promise<unknown>): Promise<boolean> {
  try {
    await promise
    return false
  } catch (err) {
    if (err instanceof ContractError && err.statusCode === 429) return true
    throw err
  }
}

if (serviceAvailable('redis')) {
  describe('brute-force counters in Redis', { timeout: 30_000 }, () => {
    let proxy: TcpProxy
    const made: RedisLimiters[] = []
    before(async () => {
      const target = new URL(TEST_REDIS_URL)
      proxy = await startTcpProxy(target.hostname, Number(target.port || 6379))
    })
    after(async () => {
      await Promise.all(made.map((l) => l.close()))
      await proxy.close()
    })
    async function limiters(url: string, log = new RecordingLog()) {
      const l = createRedisLimiters(url)
      made.push(l)
      await l.start(log)
      return { guard: createBruteForceGuard(config, l.factory), log }
    }

    it('shares counters between two guards', async () => {
      const one = await limiters(TEST_REDIS_URL)
      const two = await limiters(TEST_REDIS_URL)
      const email = `shared-${randomBytes(6).toString('hex')}@example.com`
      await (await one.guard.beginLogin(email, '10.0.0.1')).keep()
      await (await two.guard.beginLogin(email, '10.0.0.1')).keep()
      // The third attempt is counted as it begins, whichever guard it goes through.
      assert.equal(await isThrottled(one.guard.beginLogin(email, '10.0.0.1')), false)
      assert.equal(await isThrottled(two.guard.beginLogin(email, '10.0.0.1')), true)
      assert.ok(one.log.lines.some((l) => l.level === 'info' && /Redis connected/.test(l.msg)))
    })

    it('keeps counting in memory while Redis is gone, logs it once, and reconnects', async () => {
      const { guard, log } = await limiters(throughProxy(TEST_REDIS_URL, proxy))
      proxy.setMode('reset')
      await log.waitFor(/Redis lost/)
      const email = `lost-${randomBytes(6).toString('hex')}@example.com`
      for (let i = 0; i < config.pairLimit; i++)
        assert.equal(await isThrottled(guard.beginLogin(email, '10.0.0.2')), false)
      assert.equal(await isThrottled(guard.beginLogin(email, '10.0.0.2')), true)
      assert.equal(log.lines.filter((l) => l.level === 'warn').length, 1, JSON.stringify(log.lines))

      proxy.setMode('forward')
      await log.waitFor(/Redis connected/, 2)
      assert.deepEqual(
        log.lines.map((l) => l.level),
        ['info', 'warn', 'info'],
      )
    })

    it('starts, and serves from memory, when Redis cannot be reached at all', async () => {
      proxy.setMode('reset')
      const { guard, log } = await limiters(throughProxy(TEST_REDIS_URL, proxy))
      assert.match(log.lines[0]?.msg ?? '', /Redis unreachable/)
      await (await guard.beginLogin('x@example.com', '10.0.0.3')).keep()
      assert.equal(await isThrottled(guard.beginLogin('x@example.com', '10.0.0.3')), false)
      proxy.setMode('forward')
    })
  })
}
