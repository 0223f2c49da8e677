// Brute-force protection (decisions.md, "Deliberately better"): failed logins are counted per
// (email, client) pair, per email and per client; "User already exists" answers per client.
// Besides failures, accounts registered per client are counted (OWASP API4:2023: one address
// could otherwise make accounts without end), with a default far above what normal use and the
// test suites make in an hour. Counters live in rate-limiter-flexible limiters: in process
// memory by default, or in a shared backend (Redis) when the caller supplies a factory.
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible'
import type { BruteForceConfig } from '../config.js'
import { ContractError } from '../errors.js'

export type LimiterFactory = (opts: { keyPrefix: string; points: number; duration: number }) => RateLimiterAbstract

export const memoryLimiters: LimiterFactory = (opts) => new RateLimiterMemory(opts)

export const LOGIN_THROTTLED = 'Too many failed login attempts; try again later'
export const REGISTRATION_THROTTLED = 'Too many registration attempts; try again later'
export const REGISTRATIONS_THROTTLED = 'Too many accounts registered from this address; try again later'

/** Gives back a reserved registration (it did not happen). */
export type ReleaseRegistration = () => Promise<void>

export interface BruteForceGuard {
  /** Throws 429 when the pair, the email or the client is over its failed-login limit. */
  assertLoginAllowed(emailKey: string, client: string): Promise<void>
  recordLoginFailure(emailKey: string, client: string): Promise<void>
  assertRegistrationAllowed(client: string): Promise<void>
  recordDuplicateRegistration(client: string): Promise<void>
  /**
   * Counts one registration of the client before it is made, so registrations sent at once
   * cannot pass the limit together; throws 429 when the client has registered its limit in the
   * window. The caller releases the count when no account was made.
   */
  reserveRegistration(client: string): Promise<ReleaseRegistration>
}

const released: ReleaseRegistration = async () => {}

const noGuard: BruteForceGuard = {
  assertLoginAllowed: async () => {},
  recordLoginFailure: async () => {},
  assertRegistrationAllowed: async () => {},
  recordDuplicateRegistration: async () => {},
  reserveRegistration: async () => released,
}

/** 429 with Retry-After: the seconds until the limit lets the next attempt through. */
const throttled = (message: string, waitMs: number) =>
  new ContractError(429, message, true, { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) })

export function createBruteForceGuard(config: BruteForceConfig, factory: LimiterFactory = memoryLimiters): BruteForceGuard {
  if (!config.enabled) return noGuard
  const duration = config.windowSeconds
  const pair = factory({ keyPrefix: 'login-pair', points: config.pairLimit, duration })
  const email = factory({ keyPrefix: 'login-email', points: config.emailLimit, duration })
  const client = factory({ keyPrefix: 'login-client', points: config.ipLimit, duration })
  const registration = factory({ keyPrefix: 'register-client', points: config.registrationIpLimit, duration })
  const registered = factory({
    keyPrefix: 'registered-client',
    points: config.registrationsPerClient,
    duration: config.registrationWindowSeconds,
  })

  /** Throws 429 with Retry-After when any (limiter, key) has used all its points. */
  async function assertUnder(checks: Array<[RateLimiterAbstract, string]>, message: string) {
    const states = await Promise.all(checks.map(([limiter, key]) => limiter.get(key)))
    let waitMs = 0
    states.forEach((state, i) => {
      const limiter = checks[i]![0]
      if (state && state.consumedPoints >= limiter.points) waitMs = Math.max(waitMs, state.msBeforeNext)
    })
    if (waitMs > 0) throw throttled(message, waitMs)
  }

  const pairKey = (emailKey: string, ip: string) => `${emailKey}\u0000${ip}`

  return {
    assertLoginAllowed: (emailKey, ip) =>
      assertUnder([[pair, pairKey(emailKey, ip)], [email, emailKey], [client, ip]], LOGIN_THROTTLED),
    async recordLoginFailure(emailKey, ip) {
      await Promise.all([pair.penalty(pairKey(emailKey, ip)), email.penalty(emailKey), client.penalty(ip)])
    },
    assertRegistrationAllowed: (ip) => assertUnder([[registration, ip]], REGISTRATION_THROTTLED),
    async recordDuplicateRegistration(ip) {
      await registration.penalty(ip)
    },
    async reserveRegistration(ip) {
      try {
        await registered.consume(ip)
      } catch (err) {
        // consume rejects with the limiter's state when the points are used up.
        if (err instanceof RateLimiterRes) throw throttled(REGISTRATIONS_THROTTLED, err.msBeforeNext)
        throw err
      }
      return async () => {
        await registered.reward(ip)
      }
    },
  }
}
