// The token secret: ACCESS_TOKEN_SECRET, or one generated once and kept in the data directory, valid across restarts.
import { randomBytes } from 'node:crypto'
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { MIN_SECRET_BYTES } from './config.js'

export const SECRET_FILE = 'access-token-secret'

export function resolveSecret(configured: string | undefined, dataDir: string) {
  if (configured) return { secret: configured, generated: false }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const file = join(dataDir, SECRET_FILE)
  try {
    // 'wx' fails when the file exists, so two processes starting together keep one secret.
    writeFileSync(file, randomBytes(32).toString('base64url') + '\n', { flag: 'wx', mode: 0o600 })
    return { secret: readSecretFile(file), file, generated: true }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  chmodSync(file, 0o600) // repair a copy restored with looser permissions
  return { secret: readSecretFile(file), file, generated: false }
}

function readSecretFile(file: string): string {
  const secret = readFileSync(file, 'utf8').trim()
  if (Buffer.byteLength(secret) < MIN_SECRET_BYTES) {
    throw new Error(`${file} holds a secret shorter than ${MIN_SECRET_BYTES} bytes; delete it to have a new one made`)
  }
  return secret
}
