// Password hashing with argon2id at the cost the config gives (the OWASP minimum by default,
// config.ts), set explicitly because the library's defaults differ. argon2 runs on libuv's thread
// pool, so hashing does not block the event loop.
import { availableParallelism } from 'node:os'
import argon2 from 'argon2'
import pLimit from 'p-limit'
import { type PasswordHashingConfig, defaultConfig } from '../config.js'

/**
 * How many argon2 computations run at once in this process: all CPUs but one (at least one).
 * Without a bound a burst of logins fills libuv's 4 threads, each with 19 MiB, takes every core
 * from the event loop (other endpoints' p99 climbs) and takes the process past its memory target
 * (docs/performance.md, "What shaped the design"); queued hashes simply wait.
 */
export const ARGON2_CONCURRENCY = Math.max(1, availableParallelism() - 1)
const argon2Slot = pLimit(ARGON2_CONCURRENCY)

/**
 * The shortest new password change-password accepts (OWASP ASVS 5.0 V6.2.1: at least 8). Lengths
 * count code points, so an emoji is one character, as a person counts it.
 */
export const NEW_PASSWORD_MIN_LENGTH = 8

export const passwordTooShort = (field: 'Password' | 'New password', min: number) => `${field} must be at least ${min} characters`
export const SAME_PASSWORD = 'New password must be different from the current password'

/** The length of a password as the rules count it: code points. */
export const passwordLength = (password: string): number => [...password].length

export interface PasswordHasher {
  hash(password: string): Promise<string>
  /** Whether `password` matches `hash`; a malformed stored hash never lets anybody in. */
  verify(hash: string, password: string): Promise<boolean>
  /**
   * A hash of a random password, made once, verified against when the email is unknown so a
   * login for an unknown account costs the same as a wrong password (no account enumeration).
   */
  dummyHash(): Promise<string>
}

export function createPasswordHasher(cost: PasswordHashingConfig): PasswordHasher {
  const options = { type: argon2.argon2id, ...cost } as const
  let dummy: Promise<string> | undefined
  const hash = (password: string) => argon2Slot(() => argon2.hash(password, options))
  return {
    hash,
    async verify(stored, password) {
      try {
        return await argon2Slot(() => argon2.verify(stored, password))
      } catch {
        return false
      }
    },
    dummyHash: () => (dummy ??= hash(`dummy-${Math.random()}-${Date.now()}`)),
  }
}

/** The deployment's hasher, at the default cost (the import uses it). */
export const defaultPasswordHasher = createPasswordHasher(defaultConfig.passwordHashing)

export function isArgon2idHash(value: string): boolean {
  return value.startsWith('$argon2id$')
}
