// Brute-force limits hold under any concurrency (docs/security.md, "Brute-force limits"): bursts
// of parallel password attempts over a real socket, at the default limits, on both stores, with
// the counters in this process's memory and in Redis (REDIS_URL). The same scenarios run against
// real processes, `serve --workers 2` and two instances sharing Redis, in
// test/system/password-bursts.test.ts.
import { after, before, describe } from 'node:test'
import { defaultConfig } from '../../src/config.js'
import { type LimiterFactory, memoryLimiters } from '../../src/services/brute-force.js'
import { type RedisLimiters, createRedisLimiters } from '../../src/services/redis-limiters.js'
import { type Harness, startHarness } from '../support/harness.js'
import { burstTests } from '../support/scenarios/password-bursts.js'
import { TEST_REDIS_URL, serviceAvailable } from '../support/services.js'
import { storeKinds } from '../support/stores.js'

const limits = defaultConfig.bruteForce
const backends: Array<'memory' | 'redis'> = serviceAvailable('redis') ? ['memory', 'redis'] : ['memory']

for (const storeKind of storeKinds()) {
  for (const backend of backends) {
    describe(`parallel password bursts never pass a limit (${storeKind}, counters in ${backend})`, () => {
      let h: Harness
      let redis: RedisLimiters | undefined
      before(async () => {
        let limiterFactory: LimiterFactory = memoryLimiters
        if (backend === 'redis') {
          redis = createRedisLimiters(TEST_REDIS_URL)
          await redis.start({ info: () => {}, warn: () => {} })
          // Keys of this run only: a run of the suite before must not have left counts behind.
          const run = `${process.pid}-${Date.now()}:`
          const shared = redis.factory
          limiterFactory = (opts) => shared({ ...opts, keyPrefix: `${run}${opts.keyPrefix}` })
        }
        h = await startHarness('http', { storeKind, limiterFactory, config: { trustProxy: true, bruteForce: limits } })
      })
      after(async () => {
        await h.close()
        await redis?.close()
      })

      burstTests(() => h.client, limits)
    })
  }
}
