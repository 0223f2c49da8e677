// Password hashing with argon2id at the OWASP minimum (m = 19 MiB, t = 2, p = 1), set
// explicitly because the library's defaults differ:
// https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html#argon2id
// argon2 runs on libuv's thread pool, so hashing does not block the event loop.
import argon2 from 'argon2'

export const ARGON2_OPTIONS = {
  type: argon2.argon2id,
  memoryCost: 19 * 1024,
  timeCost: 2,
  parallelism: 1,
} as const

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, ARGON2_OPTIONS)
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password)
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
