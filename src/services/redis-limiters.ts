// Brute-force counters in Redis (REDIS_URL), shared by every instance, so failures spread over
// several instances still trip one limit. Each Redis limiter has an in-memory insurance limiter:
// while Redis is unreachable (or too slow) the counters fall back to this process's memory, the
// service keeps serving, and the log says so once per outage and once when Redis returns.
import { Redis } from 'ioredis'
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible'
import type { LimiterFactory } from './brute-force.js'

/** The few logger methods used; Fastify's logger (pino) fits. */
export interface EventLog {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

export interface RedisLimiters {
  factory: LimiterFactory
  /**
   * Connects and reports outages to `log` from now on. Resolves once Redis is ready or the first
   * attempt has failed (at most the 2 s connect timeout), so a service starts with shared counters
   * when it can, and starts anyway when it cannot (reconnecting in the background).
   */
  start(log: EventLog): Promise<void>
  close(): Promise<void>
}

/** Keys of all instances of this service share one namespace in Redis. */
export const REDIS_KEY_PREFIX = 'notes-service:bf:'

/** Where Redis is, without user or password, for log lines. */
function describeRedis(url: string): string {
  const u = new URL(url)
  return `${u.hostname}:${u.port || '6379'}${u.pathname}`
}

export function createRedisLimiters(url: string, options: { commandTimeoutMs?: number } = {}): RedisLimiters {
  const redis = new Redis(url, {
    lazyConnect: true,
    // Fail at once instead of queueing while disconnected: the insurance limiter answers.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A Redis that accepts but never answers must not hold a login for long.
    commandTimeout: options.commandTimeoutMs ?? 500,
    connectTimeout: 2000,
    // Keep trying to reconnect, at most every 2 seconds.
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
    start(log) {
      const where = describeRedis(url)
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
        if (up) log.warn(detail, 'Redis lost: brute-force counters fall back to this process until it returns; still serving')
        else log.warn(detail, 'Redis unreachable: brute-force counters stay in this process until it answers; still serving')
        up = false
      }
      redis.on('error', down)
      redis.on('close', () => {
        if (up) down()
      })
      // Failures arrive as 'error' events too; retries go on after this resolves.
      return redis.connect().catch(() => {})
    },
    async close() {
      redis.disconnect()
    },
  }
}
