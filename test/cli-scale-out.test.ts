// The command line as a user runs it: `migrate` against PostgreSQL, one clear line when the
// database cannot be reached, and `serve --workers 2` sharing one port (and one brute-force
// limit) on either store.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { type AddressInfo, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { after, describe, it } from 'node:test'
import { TEST_SECRET, uniqueEmail } from './support/harness.js'
import { type TestDatabase, createTestDatabase } from './support/services.js'
import { storeKinds } from './support/stores.js'
import { startTcpProxy } from './support/tcp-proxy.js'

const CLI = ['--import', 'tsx', 'src/cli.ts']

function cli(args: string[], env: Record<string, string>): ChildProcess {
  const { CI, PATH, HOME } = process.env
  return spawn(process.execPath, [...CLI, ...args], { env: { PATH, HOME, CI, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
}

async function finished(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  return { code, stdout, stderr }
}

const databases: TestDatabase[] = []
after(async () => Promise.all(databases.map((d) => d.drop())))

const kinds = storeKinds()

if (kinds.includes('postgresql')) {
  describe('notes-service migrate (PostgreSQL)', () => {
    it('applies the migrations once, then finds nothing to do', async () => {
      const db = await createTestDatabase()
      databases.push(db)
      const env = { DATABASE_URL: db.url, ACCESS_TOKEN_SECRET: TEST_SECRET }
      const first = await finished(cli(['migrate'], env))
      assert.equal(first.code, 0, first.stderr)
      assert.match(first.stdout, /^applied 1 migration\(s\) to 127\.0\.0\.1:\d+\/notes_test_\w+\n$/)
      const again = await finished(cli(['migrate'], env))
      assert.match(again.stdout, /^applied 0 migration\(s\)/)
    })
  })
}

describe('notes-service serve with an unreachable database', () => {
  it('exits 1 with one line naming the database, not a stack trace', async () => {
    const closed = await startTcpProxy('127.0.0.1', 1)
    closed.setMode('reset')
    const url = `postgres://postgres:hunter2@127.0.0.1:${closed.port}/notes`
    const result = await finished(cli(['serve', '--workers', '2'], { DATABASE_URL: url, ACCESS_TOKEN_SECRET: TEST_SECRET, PORT: '0' }))
    await closed.close()
    assert.equal(result.code, 1)
    assert.match(result.stderr, new RegExp(`^notes-service: cannot reach PostgreSQL at 127\\.0\\.0\\.1:${closed.port}/notes: [^\\n]+\\n$`))
    assert.doesNotMatch(result.stderr, /hunter2/)
  })
})

describe('notes-service serve --workers 2 on a port already taken', { timeout: 60_000 }, () => {
  it('stops with exit code 1 instead of restarting workers that cannot start', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const port = (taken.address() as AddressInfo).port
    const dataDir = mkdtempSync(join(tmpdir(), 'notes-workers-'))
    try {
      const result = await finished(cli(['serve', '--workers', '2'], { HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir }))
      assert.equal(result.code, 1)
      assert.match(result.stderr, /EADDRINUSE/)
      assert.match(result.stderr, /failed to start \(exit 1\); stopping\n/)
    } finally {
      taken.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

for (const kind of kinds) {
  describe(`notes-service serve --workers 2 (${kind})`, { timeout: 120_000 }, () => {
    it('serves from two processes on one port, with one brute-force limit, and stops on SIGTERM', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'notes-workers-'))
      const env: Record<string, string> = { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOGIN_FAILURES_PER_ACCOUNT_AND_CLIENT: '2' }
      if (kind === 'postgresql') {
        const db = await createTestDatabase()
        databases.push(db)
        Object.assign(env, { DATABASE_URL: db.url, ACCESS_TOKEN_SECRET: TEST_SECRET })
      }
      const child = cli(['serve', '--workers', '2'], env)
      const done = finished(child)
      // Each worker logs "Server listening at http://127.0.0.1:<port>"; all share the port.
      const pids = new Set<number>()
      let port = 0
      const lines = createInterface({ input: child.stdout! })
      for await (const line of lines) {
        const entry = JSON.parse(line) as { pid: number; msg: string }
        const m = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(entry.msg)
        if (!m) continue
        pids.add(entry.pid)
        port = Number(m[1])
        if (pids.size === 2) break
      }
      assert.equal(pids.size, 2)
      assert.ok(!pids.has(child.pid!))
      const email = uniqueEmail('workers')
      const attempt = async () =>
        (
          await fetch(`http://127.0.0.1:${port}/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', connection: 'close' },
            body: JSON.stringify({ email, password: 'wrong' }),
          })
        ).status
      // New connections go round-robin to the workers, so these land on both of them.
      assert.deepEqual([await attempt(), await attempt(), await attempt(), await attempt()], [400, 400, 429, 429])

      child.kill('SIGTERM')
      const { code, stdout } = await done
      assert.equal(code, 0)
      const servedBy = stdout
        .split('\n')
        .filter((l) => l.includes('"path":"/login"'))
        .map((l) => (JSON.parse(l) as { pid: number }).pid)
      assert.equal(new Set(servedBy).size, 2, 'both workers answered')
      rmSync(dataDir, { recursive: true, force: true })
    })
  })
}
