// The PostgreSQL driver (`pg`) and the Redis client (`ioredis`) are imported only when
// DATABASE_URL / REDIS_URL ask for them (a fresh SQLite server is about 15 MB smaller without
// them), and a server started with them still works. Runs the real CLI, so a
// static import anywhere in its module graph would show.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, describe, it } from 'node:test'
import { freePort } from '../support/cli.js'
import { TEST_SECRET, uniqueEmail } from '../support/harness.js'
import { TEST_REDIS_URL, type TestDatabase, createTestDatabase, serviceAvailable } from '../support/services.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** Runs `notes-service serve`, lets `use` talk to it, stops it; resolves to the drivers it had loaded. */
async function serveAndReport(env: Record<string, string>, use: (base: string) => Promise<void>): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-lazy-'))
  const port = await freePort()
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', './test/support/report-drivers.ts', 'src/cli.ts', 'serve'],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  )
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const base = `http://127.0.0.1:${port}`
  try {
    for (let tries = 0; ; tries++) {
      try {
        await (await fetch(`${base}/healthz`)).text()
        break
      } catch (err) {
        if (tries > 400 || child.exitCode !== null) throw new Error(`server did not start: ${stderr}`, { cause: err })
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
    await use(base)
  } finally {
    child.kill('SIGTERM')
    await exited
    rmSync(dataDir, { recursive: true, force: true })
  }
  const line = /^drivers loaded: (.*)$/m.exec(stderr)
  assert.ok(line?.[1], `no report from the child: ${stderr}`)
  return JSON.parse(line[1]) as string[]
}

/** Registers an account and reads it back with its token: store, tokens and limiters at work. */
async function registerAndGetUser(base: string): Promise<void> {
  const email = uniqueEmail('lazy')
  const created = await fetch(`${base}/create-account`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fullName: 'Lazy', email, password: 'pw' }),
  })
  assert.equal(created.status, 200)
  const { accessToken } = (await created.json()) as { accessToken: string }
  const me = await fetch(`${base}/get-user`, { headers: { authorization: `Bearer ${accessToken}` } })
  assert.equal(me.status, 200)
  assert.equal(((await me.json()) as { user: { email: string } }).user.email, email)
}

describe('optional drivers are loaded only when configured', { timeout: 60_000 }, () => {
  it('an SQLite server without REDIS_URL loads neither pg nor ioredis', async () => {
    const loaded = await serveAndReport({}, registerAndGetUser)
    assert.deepEqual(loaded, [])
  })

  if (serviceAvailable('postgresql') && serviceAvailable('redis')) {
    const databases: TestDatabase[] = []
    after(async () => Promise.all(databases.map((db) => db.drop())))

    it('with DATABASE_URL and REDIS_URL the server loads both and answers', async () => {
      const db = await createTestDatabase()
      databases.push(db)
      const env = { DATABASE_URL: db.url, ACCESS_TOKEN_SECRET: TEST_SECRET, REDIS_URL: TEST_REDIS_URL }
      const loaded = await serveAndReport(env, registerAndGetUser)
      assert.deepEqual(loaded, ['ioredis', 'pg'])
    })
  }
})
