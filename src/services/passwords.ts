// argon2id at the cost the config gives, set explicitly because the library's defaults differ.
import { availableParallelism } from 'node:os'
import argon2 from 'argon2'
import pLimit from 'p-limit'
import { type PasswordHashingConfig, defaultConfig } from '../config.js'

// All CPUs but one, or a login burst starves the event loop and passes the memory target (docs/performance.md).
const argon2Slot = pLimit(Math.max(1, availableParallelism() - 1))

/** For change-password (OWASP ASVS 5.0 V6.2.1). */
export const NEW_PASSWORD_MIN_LENGTH = 8

export const passwordTooShort = (field: 'Password' | 'New password', min: number) =>
  `${field} must be at least ${min} characters`
export const SAME_PASSWORD = 'New password must be different from the current password'

/** Code points: an emoji is one character, as a person counts it. */
export const passwordLength = (password: string): number => [...password].length

export type PasswordHasher = ReturnType<typeof createPasswordHasher>

export function createPasswordHasher(cost: PasswordHashingConfig) {
  const options = { type: argon2.argon2id, ...cost } as const
  let dummy: Promise<string> | undefined
  const hash = (password: string): Promise<string> => argon2Slot(() => argon2.hash(password, options))
  return {
    hash,
    /** A malformed stored hash never lets anybody in. */
    verify: (stored: string, password: string): Promise<boolean> =>
      argon2Slot(() => argon2.verify(stored, password)).catch(() => false),
    /** Verified against for an unknown email, so that it costs what a wrong password does. */
    dummyHash: (): Promise<string> => (dummy ??= hash(`dummy-${Math.random()}-${Date.now()}`)),
  }
}

export const defaultPasswordHasher = createPasswordHasher(defaultConfig.passwordHashing)

export const isArgon2idHash = (value: string): boolean => value.startsWith('$argon2id$')
