// Brute-force counters in Redis, shared by the instances; while Redis is unreachable or slow, each process counts alone.
import { Redis } from 'ioredis'
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible'
import type { LimiterFactory } from './brute-force.js'

type EventLog = Record<'info' | 'warn', (obj: object, msg: string) => void>

const REDIS_KEY_PREFIX = 'notes-service:bf:'

export type RedisLimiters = ReturnType<typeof createRedisLimiters>

export function createRedisLimiters(url: string) {
  const redis = new Redis(url, {
    lazyConnect: true,
    // Fail at once while disconnected: the insurance limiter answers.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A Redis that accepts but never answers must not hold a login for long.
    commandTimeout: 500,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 100, 2000),
  })
  const factory: LimiterFactory = (opts) =>
    new RateLimiterRedis({
      ...opts,
      keyPrefix: REDIS_KEY_PREFIX + opts.keyPrefix,
      storeClient: redis,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory(opts),
    })
  return {
    factory,
    /** Resolves once Redis is ready or the first attempt has failed, so that a service starts either way. */
    start(log: EventLog): Promise<void> {
      // Without user or password.
      const { hostname, port, pathname } = new URL(url)
      const where = `${hostname}:${port || '6379'}${pathname}`
      let up = false
      let reportedDown = false
      redis.on('ready', () => {
        up = true
        reportedDown = false
        log.info({ redis: where }, 'Redis connected: brute-force counters are shared between instances')
      })
      const down = (err?: Error) => {
        if (reportedDown) return
        reportedDown = true
        const detail = { redis: where, reason: err?.message ?? 'connection closed' }
        if (up)
          log.warn(detail, 'Redis lost: brute-force counters fall back to this process until it returns; still serving')
        else
          log.warn(
            detail,
            'Redis unreachable: brute-force counters stay in this process until it answers; still serving',
          )
        up = false
      }
      redis.on('error', down)
      redis.on('close', () => {
        if (up) down()
      })
      return redis.connect().catch(() => {})
    },
    async close(): Promise<void> {
      redis.disconnect()
    },
  }
}
