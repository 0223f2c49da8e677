// Brute-force limits (docs/security.md). Every attempt is counted BEFORE the password is verified, atomically
// per counter, and given back when it was right, so a burst of parallel attempts cannot pass a limit together.
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'
import type { BruteForceConfig } from '../config.js'
import { ContractError } from '../errors.js'

export type LimiterFactory = (opts: { keyPrefix: string; points: number; duration: number }) => RateLimiterAbstract

export const memoryLimiters: LimiterFactory = (opts) => new RateLimiterMemory(opts)

export const LOGIN_THROTTLED = 'Too many failed login attempts; try again later'
export const REGISTRATION_THROTTLED = 'Too many registration attempts; try again later'
export const REGISTRATIONS_THROTTLED = 'Too many accounts registered from this address; try again later'

// Longer than the login window, so a stolen token cannot spread its guesses over windows; not much
// longer, since the memory limiter expires keys with timers (setTimeout waits at most 24.8 days).
const SESSION_FAILURES_WINDOW_SECONDS = 7 * 24 * 3600

type CountedAttempt = Record<'giveBack' | 'keep', () => Promise<void>>

interface SessionAttempt extends Omit<CountedAttempt, 'keep'> {
  /** true: that failure was the session's last one, and it must end. */
  keep(): Promise<boolean>
}

export interface BruteForceGuard {
  /** Counted per (email, client) pair, per email and per client; 429, counting nothing, at a limit. */
  beginLogin(emailKey: string, client: string): Promise<CountedAttempt>
  /** Never toward the login's limits, so a stolen token cannot lock its owner out; undefined: it must end. */
  beginSessionCheck(sessionKey: string): Promise<SessionAttempt | undefined>
  /** A possible "User already exists" answer; 429 at the client's limit. */
  beginRegistration(client: string): Promise<CountedAttempt>
  /** One registration, before it is made; 429 when the client has registered its limit in the window. */
  reserveRegistration(client: string): Promise<CountedAttempt>
}

const nothing = async () => {}
const uncounted: CountedAttempt = { giveBack: nothing, keep: nothing }
const uncountedSession: SessionAttempt = { giveBack: nothing, keep: async () => false }

const noGuard: BruteForceGuard = {
  beginLogin: async () => uncounted,
  beginSessionCheck: async () => uncountedSession,
  beginRegistration: async () => uncounted,
  reserveRegistration: async () => uncounted,
}

type Counter = readonly [RateLimiterAbstract, string]

// When a counter refuses, every point taken goes back (consume() counts even then): a throttled pair spares the email's limit.
async function take(counters: readonly Counter[], message: string): Promise<CountedAttempt> {
  const taken = await Promise.allSettled(counters.map(([limiter, key]) => limiter.consume(key)))
  const giveBack = () => Promise.all(counters.map(([limiter, key]) => limiter.reward(key))).then(nothing)
  const refusals = taken.flatMap((t) => (t.status === 'rejected' ? [t.reason as unknown] : []))
  if (refusals.length === 0) return { giveBack, keep: nothing }
  // A limiter that failed (not a refusal) took nothing; the others' points go back.
  const tookPoint = (t: PromiseSettledResult<unknown>) => t.status === 'fulfilled' || t.reason instanceof RateLimiterRes
  await Promise.all(counters.filter((_, i) => tookPoint(taken[i]!)).map(([limiter, key]) => limiter.reward(key)))
  const failure = refusals.find((r) => !(r instanceof RateLimiterRes))
  if (failure !== undefined)
    throw failure instanceof Error ? failure : new Error('brute-force counter failed', { cause: failure })
  const waitMs = Math.max(...refusals.map((r) => (r as RateLimiterRes).msBeforeNext))
  throw new ContractError(429, message, true, { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) })
}

export function createBruteForceGuard(
  config: BruteForceConfig,
  factory: LimiterFactory = memoryLimiters,
): BruteForceGuard {
  if (!config.enabled) return noGuard
  const limiter = (keyPrefix: string, points: number, duration = config.windowSeconds) =>
    factory({ keyPrefix, points, duration })
  const pair = limiter('login-pair', config.pairLimit)
  const email = limiter('login-email', config.emailLimit)
  const client = limiter('login-client', config.ipLimit)
  const session = limiter('password-session', config.sessionLimit, SESSION_FAILURES_WINDOW_SECONDS)
  const registration = limiter('register-client', config.registrationIpLimit)
  const registered = limiter('registered-client', config.registrationsPerClient, config.registrationWindowSeconds)

  return {
    beginLogin: (emailKey, ip) =>
      take(
        [
          [pair, `${emailKey}\u0000${ip}`],
          [email, emailKey],
          [client, ip],
        ],
        LOGIN_THROTTLED,
      ),
    async beginSessionCheck(key) {
      const counted = await session.consume(key).catch((err: unknown) => {
        if (err instanceof RateLimiterRes) return undefined
        throw err
      })
      if (!counted) return undefined
      return { giveBack: () => session.reward(key).then(nothing), keep: async () => counted.remainingPoints === 0 }
    },
    beginRegistration: (ip) => take([[registration, ip]], REGISTRATION_THROTTLED),
    reserveRegistration: (ip) => take([[registered, ip]], REGISTRATIONS_THROTTLED),
  }
}
