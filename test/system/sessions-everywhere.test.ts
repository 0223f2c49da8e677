// Ending a session or an account takes effect everywhere at once, and for good: two
// instances on one PostgreSQL database, and `serve --workers 2` on either store, refuse a
// revoked token at their next request, whichever process ended it (an instance, a worker, the
// operator's `users` command), and still refuse it after a restart. Tokens without a session
// (signed here as the previous release signed them) end with logout-everywhere on every process.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { after, describe, it } from 'node:test'
import { parseConfig } from '../../src/config.js'
import { type RunningServer, startServer } from '../../src/server.js'
import { type TokenUser, createTokenService } from '../../src/services/tokens.js'
import { TEST_SECRET, uniqueEmail } from '../support/harness.js'
import { type TestDatabase, createTestDatabase } from '../support/services.js'
import { storeKinds } from '../support/stores.js'

const CLI = ['--import', 'tsx', 'src/cli.ts']
const kinds = storeKinds()
const databases: TestDatabase[] = []
after(async () => Promise.all(databases.map((d) => d.drop())))

interface Answer {
  status: number
  json: Record<string, unknown>
}

/** One request on a connection of its own: the kernel spreads new connections over the workers. */
async function call(base: string, method: string, path: string, token?: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { connection: 'close' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (token) headers.authorization = `Bearer ${token}`
  const res = await fetch(base + path, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) })
  const text = await res.text()
  let json: Record<string, unknown> = {}
  try {
    json = JSON.parse(text) as Record<string, unknown>
  } catch {
    // the bare 401
  }
  return { status: res.status, json }
}

const PASSWORD = 'correct horse battery staple'
async function registered(base: string): Promise<{ email: string; token: string; user: TokenUser }> {
  const email = uniqueEmail('everywhere')
  const res = await call(base, 'POST', '/create-account', undefined, {
    fullName: 'Everywhere',
    email,
    password: PASSWORD,
  })
  assert.equal(res.status, 200)
  return { email, token: res.json.accessToken as string, user: res.json.user as TokenUser }
}
async function loggedIn(base: string, email: string, password = PASSWORD): Promise<string> {
  const res = await call(base, 'POST', '/login', undefined, { email, password })
  assert.equal(res.status, 200)
  return res.json.accessToken as string
}
const statusOf = async (base: string, token: string) => (await call(base, 'GET', '/get-user', token)).status
const sidOf = (token: string) =>
  (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sid: string }).sid
/** A token without a session, as the release before sessions issued. */
const sessionless = (user: TokenUser) => createTokenService(TEST_SECRET).issue(user)

if (kinds.includes('postgresql')) {
  describe('two instances on one PostgreSQL database', { timeout: 120_000 }, () => {
    it('each refuses at its next request what the other ended, and both still do after restarting', async () => {
      const db = await createTestDatabase()
      databases.push(db)
      const config = parseConfig({
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'silent',
        DATABASE_URL: db.url,
        DATABASE_POOL_SIZE: '4',
        ACCESS_TOKEN_SECRET: TEST_SECRET,
      })
      const start = async () => {
        const server = await startServer(config)
        return { server, base: `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}` }
      }
      let [a, b] = await Promise.all([start(), start()])
      const running = (): RunningServer[] => [a.server, b.server]
      try {
        const one = await registered(a.base)
        const two = await loggedIn(b.base, one.email)
        const three = await loggedIn(a.base, one.email)
        for (const token of [one.token, two, three])
          for (const base of [a.base, b.base]) assert.equal(await statusOf(base, token), 200)

        // Logged out on A: refused by B at once (and by A).
        assert.equal((await call(a.base, 'POST', '/logout', one.token)).status, 200)
        for (const base of [b.base, a.base]) assert.equal(await statusOf(base, one.token), 401)
        // Ended from B: refused by A at once.
        assert.equal((await call(b.base, 'DELETE', `/delete-session/${sidOf(three)}`, two)).status, 200)
        assert.equal(await statusOf(a.base, three), 401)
        assert.equal(await statusOf(a.base, two), 200)

        // A password changed through A ends B's other sessions; a token without a session too.
        const other = await registered(b.base)
        const otherSecond = await loggedIn(a.base, other.email)
        const old = sessionless(other.user)
        for (const base of [a.base, b.base]) assert.equal(await statusOf(base, old), 200)
        assert.equal(
          (
            await call(a.base, 'PUT', '/change-password', other.token, {
              currentPassword: PASSWORD,
              newPassword: 'changed on A',
            })
          ).status,
          200,
        )
        assert.equal(await statusOf(b.base, otherSecond), 401)
        assert.equal(await statusOf(b.base, other.token), 200, 'the caller goes on')
        assert.equal(await statusOf(b.base, old), 401, 'B refuses the token without a session at once')

        // An account deleted through B: refused by A at once.
        const gone = await registered(a.base)
        await call(a.base, 'POST', '/add-note', gone.token, { title: 't', content: 'c' })
        assert.equal((await call(b.base, 'DELETE', '/delete-account', gone.token, { password: PASSWORD })).status, 200)
        assert.equal(await statusOf(a.base, gone.token), 401)
        assert.equal((await call(a.base, 'GET', '/get-all-notes', gone.token)).status, 401)

        // Both restarted: what ended stays ended, what lives stays alive.
        await Promise.all(running().map((s) => s.close()))
        ;[a, b] = await Promise.all([start(), start()])
        for (const base of [a.base, b.base]) {
          for (const token of [one.token, three, otherSecond, old, gone.token])
            assert.equal(await statusOf(base, token), 401)
          for (const token of [two, other.token]) assert.equal(await statusOf(base, token), 200)
        }
      } finally {
        await Promise.all(running().map((s) => s.close()))
      }
    })
  })
}

function cli(args: string[], env: Record<string, string>): ChildProcess {
  const { CI, PATH, HOME } = process.env
  return spawn(process.execPath, [...CLI, ...args], {
    env: { PATH, HOME, CI, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

async function finished(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  return { code, stdout, stderr }
}

const LISTENING = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/

/** `serve` as a child process; resolves once `workers` processes listen, with their pids and the port. */
async function serving(env: Record<string, string>, workers: number) {
  const child = cli(workers > 1 ? ['serve', '--workers', String(workers)] : ['serve'], {
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    ...env,
  })
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  const entries: Array<{ pid: number; msg: string; path?: string }> = []
  let wake = () => {}
  createInterface({ input: child.stdout! }).on('line', (line) => {
    entries.push(JSON.parse(line) as (typeof entries)[number])
    wake()
  })
  const waitFor = async (count: number, test: (e: (typeof entries)[number]) => boolean) => {
    while (entries.filter(test).length < count) await new Promise<void>((resolve) => (wake = resolve))
    return entries.filter(test)
  }
  const listening = await waitFor(workers, (e) => LISTENING.test(e.msg))
  const base = `http://127.0.0.1:${LISTENING.exec(listening[0]!.msg)![1]}`
  return {
    base,
    pids: new Set(listening.map((e) => e.pid)),
    /** The pids that served requests to `path` so far (request lines are written after the answer). */
    servedBy: async (path: string, count: number) =>
      new Set((await waitFor(count, (e) => e.path === path)).map((e) => e.pid)),
    stop: async () => {
      child.kill('SIGTERM')
      assert.equal(await exited, 0)
    },
  }
}

for (const kind of kinds) {
  describe(`notes-service serve --workers 2 (${kind})`, { timeout: 180_000 }, () => {
    it("every worker refuses at its next request what another worker or the operator's command ended, also after a restart", async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'notes-sessions-'))
      const env: Record<string, string> = { DATA_DIR: dataDir }
      if (kind === 'postgresql') {
        const db = await createTestDatabase()
        databases.push(db)
        Object.assign(env, { DATABASE_URL: db.url, ACCESS_TOKEN_SECRET: TEST_SECRET })
      } else {
        // The secret file is made by the primary; tokens without a session are signed with it here.
        Object.assign(env, { ACCESS_TOKEN_SECRET: TEST_SECRET })
      }
      let server = await serving(env, 2)
      try {
        assert.equal(server.pids.size, 2)
        const one = await registered(server.base)
        const tokens = [one.token, await loggedIn(server.base, one.email), await loggedIn(server.base, one.email)]
        const old = sessionless(one.user)
        const [first, second, third] = tokens as [string, string, string]
        // Each connection may land on either worker: four answers each, from both.
        const everyWorker = async (token: string) => {
          const statuses = new Set<number>()
          for (let i = 0; i < 4; i++) statuses.add(await statusOf(server.base, token))
          return [...statuses]
        }
        for (const token of [...tokens, old]) assert.deepEqual(await everyWorker(token), [200])
        assert.equal((await server.servedBy('/get-user', 16)).size, 2, 'both workers answered')

        assert.equal((await call(server.base, 'POST', '/logout', first)).status, 200)
        assert.deepEqual(await everyWorker(first), [401])
        assert.deepEqual(await everyWorker(second), [200])

        // The operator ends the rest while the server runs: every worker refuses them at once.
        const revoked = await finished(cli(['users', 'revoke-sessions', one.email], env))
        assert.equal(revoked.code, 0, revoked.stderr)
        for (const token of [second, third, old]) assert.deepEqual(await everyWorker(token), [401])
        const fourth = await loggedIn(server.base, one.email)
        assert.deepEqual(await everyWorker(fourth), [200])

        // logout-everywhere through one worker ends a token without a session on the other.
        const two = await registered(server.base)
        const twoOld = sessionless(two.user)
        assert.deepEqual(await everyWorker(twoOld), [200])
        assert.equal((await call(server.base, 'POST', '/logout-everywhere', two.token)).status, 200)
        assert.deepEqual(await everyWorker(twoOld), [401])

        // Restarted (one process this time): the ended stay ended, the live stay live.
        await server.stop()
        server = await serving(env, 1)
        for (const token of [first, second, third, old, two.token, twoOld])
          assert.equal(await statusOf(server.base, token), 401)
        assert.equal(await statusOf(server.base, fourth), 200)
      } finally {
        await server.stop().catch(() => {})
        rmSync(dataDir, { recursive: true, force: true })
      }
    })
  })
}
