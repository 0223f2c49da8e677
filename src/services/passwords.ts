// Password hashing with argon2id at the OWASP minimum (m = 19 MiB, t = 2, p = 1), set
// explicitly because the library's defaults differ:
// https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html#argon2id
// argon2 runs on libuv's thread pool, so hashing does not block the event loop.
import { availableParallelism } from 'node:os'
import argon2 from 'argon2'
import pLimit from 'p-limit'

export const ARGON2_OPTIONS = {
  type: argon2.argon2id,
  memoryCost: 19 * 1024,
  timeCost: 2,
  parallelism: 1,
} as const

/**
 * How many argon2 computations run at once: all CPUs but one (at least one). Without a bound a
 * burst of logins fills libuv's 4 threads, each with 19 MiB, takes every core from the event
 * loop (other endpoints' p99 climbs) and pushes RSS past 200 MB; queued hashes simply wait.
 */
export const ARGON2_CONCURRENCY = Math.max(1, availableParallelism() - 1)
const argon2Slot = pLimit(ARGON2_CONCURRENCY)

export function hashPassword(password: string): Promise<string> {
  return argon2Slot(() => argon2.hash(password, ARGON2_OPTIONS))
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2Slot(() => argon2.verify(hash, password))
  } catch {
    return false // a malformed stored hash never lets anybody in
  }
}

export function isArgon2idHash(value: string): boolean {
  return value.startsWith('$argon2id$')
}

/**
 * A hash of a random password, made once, verified against when the email is unknown so a
 * login for an unknown account costs the same as a wrong password (no account enumeration).
 */
let dummyHash: Promise<string> | undefined
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(`dummy-${Math.random()}-${Date.now()}`)
  return dummyHash
}
