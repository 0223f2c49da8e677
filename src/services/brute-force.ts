// Brute-force protection (docs/security.md, "Brute-force limits"). Every password check is
// counted BEFORE the password is verified, in one atomic step per counter (consume), and given
// back when the password was right: so a burst of parallel attempts can never see the same count
// and pass a limit together, and the passwords verified never exceed it.
// - Logins count per (email, client) pair, per email and per client.
// - A signed-in session's password checks (change-password, delete-account) count per session,
//   never toward the login's counters, so a stolen token cannot lock its owner out of login;
//   the session ends when it has used them all.
// - "User already exists" answers count per client, before the lookup; registrations per client.
// Counters live in rate-limiter-flexible limiters: in process memory by default, in the primary
// for --workers, or in Redis when the caller supplies that factory.
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'
import type { BruteForceConfig } from '../config.js'
import { ContractError } from '../errors.js'

export type LimiterFactory = (opts: { keyPrefix: string; points: number; duration: number }) => RateLimiterAbstract

export const memoryLimiters: LimiterFactory = (opts) => new RateLimiterMemory(opts)

export const LOGIN_THROTTLED = 'Too many failed login attempts; try again later'
export const REGISTRATION_THROTTLED = 'Too many registration attempts; try again later'
export const REGISTRATIONS_THROTTLED = 'Too many accounts registered from this address; try again later'

/**
 * How long a session's failed password checks are remembered. Longer than the login window, so
 * a stolen token cannot spread its guesses over windows; at most 7 days, since the memory
 * limiter expires keys with timers (setTimeout cannot wait longer than 24.8 days).
 */
export const SESSION_FAILURES_WINDOW_SECONDS = 7 * 24 * 3600

/** An attempt that is counted already; its outcome decides whether it stays counted. */
export interface CountedAttempt {
  /** It did not count after all (a right password, a registration made): given back. */
  giveBack(): Promise<void>
  /** It stays counted (a wrong password, a duplicate email). */
  keep(): Promise<void>
}

/** A session's password check: keep() tells whether that failure used the session's last one. */
export interface SessionAttempt {
  giveBack(): Promise<void>
  /** true: the session has now failed as often as it may, and must end. */
  keep(): Promise<boolean>
}

export interface BruteForceGuard {
  /** Counts a login attempt; throws 429 (counting nothing) when the pair, email or client is at its limit. */
  beginLogin(emailKey: string, client: string): Promise<CountedAttempt>
  /**
   * Counts a password check of a signed-in session (its key: the session id, or the account for
   * a token without a session); undefined, counting nothing, when the session has used all its
   * failures (it must end).
   */
  beginSessionCheck(sessionKey: string): Promise<SessionAttempt | undefined>
  /** Counts a possible "User already exists" answer of the client; throws 429 at its limit. */
  beginRegistration(client: string): Promise<CountedAttempt>
  /**
   * Counts one registration of the client before it is made; throws 429 when the client has
   * registered its limit in the window. The caller gives it back when no account was made.
   */
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

/** 429 with Retry-After: the seconds until the limit lets the next attempt through. */
const throttled = (message: string, waitMs: number) =>
  new ContractError(429, message, true, { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) })

type Counter = readonly [RateLimiterAbstract, string]

/**
 * Takes one point from every counter at once. When any refuses (its points are used up), every
 * point this attempt took is given back, so refused attempts never count (a throttled pair does
 * not use up the email's limit), and it throws 429 with the longest wait. consume() counts the
 * point even when it refuses, so the refused counter is given its point back too.
 */
async function take(counters: readonly Counter[], message: string): Promise<CountedAttempt> {
  const taken = await Promise.allSettled(counters.map(([limiter, key]) => limiter.consume(key)))
  const giveBack = () => Promise.all(counters.map(([limiter, key]) => limiter.reward(key))).then(nothing)
  const refusals = taken.flatMap((t) => (t.status === 'rejected' ? [t.reason as unknown] : []))
  if (refusals.length === 0) return { giveBack, keep: nothing }
  // A limiter that failed (not a refusal) took nothing; the others' points go back.
  await Promise.all(
    counters.flatMap(([limiter, key], i) => {
      const t = taken[i]!
      return t.status === 'fulfilled' || t.reason instanceof RateLimiterRes ? [limiter.reward(key)] : []
    }),
  )
  const failure = refusals.find((r) => !(r instanceof RateLimiterRes))
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error('brute-force counter failed', { cause: failure })
  throw throttled(message, Math.max(...refusals.map((r) => (r as RateLimiterRes).msBeforeNext)))
}

export function createBruteForceGuard(config: BruteForceConfig, factory: LimiterFactory = memoryLimiters): BruteForceGuard {
  if (!config.enabled) return noGuard
  const duration = config.windowSeconds
  const pair = factory({ keyPrefix: 'login-pair', points: config.pairLimit, duration })
  const email = factory({ keyPrefix: 'login-email', points: config.emailLimit, duration })
  const client = factory({ keyPrefix: 'login-client', points: config.ipLimit, duration })
  const session = factory({ keyPrefix: 'password-session', points: config.sessionLimit, duration: SESSION_FAILURES_WINDOW_SECONDS })
  const registration = factory({ keyPrefix: 'register-client', points: config.registrationIpLimit, duration })
  const registered = factory({
    keyPrefix: 'registered-client',
    points: config.registrationsPerClient,
    duration: config.registrationWindowSeconds,
  })

  const pairKey = (emailKey: string, ip: string) => `${emailKey}\u0000${ip}`

  return {
    beginLogin: (emailKey, ip) => take([[pair, pairKey(emailKey, ip)], [email, emailKey], [client, ip]], LOGIN_THROTTLED),
    async beginSessionCheck(key) {
      let counted: RateLimiterRes
      try {
        counted = await session.consume(key)
      } catch (err) {
        if (err instanceof RateLimiterRes) return undefined
        throw err
      }
      return {
        giveBack: () => session.reward(key).then(nothing),
        keep: async () => counted.remainingPoints === 0,
      }
    },
    beginRegistration: (ip) => take([[registration, ip]], REGISTRATION_THROTTLED),
    reserveRegistration: (ip) => take([[registered, ip]], REGISTRATIONS_THROTTLED),
  }
}
