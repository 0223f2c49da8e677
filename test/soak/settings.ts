// The soak's settings (docs/testing.md, "The soak test") and its randomness. Every random choice comes from a
// PRNG seeded from SOAK_SEED, one stream per actor (an account's device, the chaos loop), so a seed replays the
// same choices; the interleaving of concurrent requests is the machine's, which a seed cannot replay.
import { randomInt } from 'node:crypto'

const int = (name: string, fallback: number, min: number, max: number): number => {
  const raw = process.env[name]?.trim()
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`)
  return value
}

export interface SoakSettings {
  /** The seed of every random choice: printed, and given back as SOAK_SEED to replay. */
  seed: number
  /** Seconds of traffic per deployment. */
  seconds: number
  /** Accounts used at once per deployment (a deleted account is replaced by a new one). */
  accounts: number
  /** Devices (clients, each with a session of its own) per account. */
  devices: number
  /** Busy-loop processes beside the servers. */
  busy: number
  /** Seconds between two chaos events (CLI revoke, a worker or instance killed). */
  chaosSeconds: number
  /** What the soak may take to see a stream end, beyond the required 1 s and the servers' lateness: see streamEndBoundMs (checks.ts). */
  streamSlackMs: number
  /** The deployments to run: 'postgresql' (two instances with Redis), 'sqlite' (--workers 2). */
  stores: string[]
}

export function soakSettings(): SoakSettings {
  const stores = (process.env.SOAK_STORES ?? 'postgresql,sqlite')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const store of stores)
    if (store !== 'postgresql' && store !== 'sqlite') throw new Error(`SOAK_STORES: unknown store "${store}"`)
  return {
    seed: int('SOAK_SEED', randomInt(1, 2 ** 31 - 1), 0, 2 ** 31 - 1),
    seconds: int('SOAK_SECONDS', 40, 1, 86_400),
    accounts: int('SOAK_ACCOUNTS', 6, 1, 1000),
    devices: int('SOAK_DEVICES', 3, 2, 8),
    busy: int('SOAK_BUSY', 2, 0, 16),
    chaosSeconds: int('SOAK_CHAOS_SECONDS', 8, 1, 3600),
    streamSlackMs: int('SOAK_STREAM_SLACK_MS', 250, 0, 60_000),
    stores,
  }
}

/** The command that replays a run. */
export function replayCommand(s: SoakSettings): string {
  return (
    `SOAK_SEED=${s.seed} SOAK_SECONDS=${s.seconds} SOAK_ACCOUNTS=${s.accounts} SOAK_DEVICES=${s.devices} ` +
    `SOAK_BUSY=${s.busy} SOAK_CHAOS_SECONDS=${s.chaosSeconds} SOAK_STORES=${s.stores.join(',')} npm run test:soak`
  )
}

/** A small seeded PRNG (mulberry32): fast, and enough to pick operations. */
export class Random {
  private state: number
  constructor(seed: number, ...salt: number[]) {
    let s = seed >>> 0
    for (const n of salt) s = Math.imul(s ^ (n + 0x9e3779b9), 0x85ebca6b) >>> 0
    this.state = s || 1
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0)
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n)
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from nothing')
    return items[this.below(items.length)]!
  }

  /** A key of `weights`, with probability proportional to its weight. */
  weighted<K extends string>(weights: Record<K, number>): K {
    const entries = Object.entries(weights) as Array<[K, number]>
    let at = this.next() * entries.reduce((sum, [, w]) => sum + w, 0)
    for (const [key, weight] of entries) {
      at -= weight
      if (at < 0) return key
    }
    return entries[entries.length - 1]![0]
  }

  /** A word of lower-case letters, for texts and passwords. */
  word(length: number): string {
    let out = ''
    for (let i = 0; i < length; i++) out += String.fromCharCode(97 + this.below(26))
    return out
  }
}
