// The command line as a user runs it: `migrate` against PostgreSQL, one clear line when the
// database cannot be reached, and `serve --workers 2` sharing one port (and one brute-force
// limit) on either store.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { type AddressInfo, type Socket, connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { after, describe, it } from 'node:test'
import pg from 'pg'
import { migrations } from '../../src/store/postgres/migrations.js'
import { TEST_SECRET, uniqueEmail } from '../support/harness.js'
import { type TestDatabase, createTestDatabase } from '../support/services.js'
import { storeKinds } from '../support/stores.js'
import { startTcpProxy } from '../support/tcp-proxy.js'

const CLI = ['--import', 'tsx', 'src/cli.ts']

function cli(args: string[], env: Record<string, string>): ChildProcess {
  const { CI, PATH, HOME } = process.env
  // detached: the child leads its own process group, so a test can signal it like a terminal.
  return spawn(process.execPath, [...CLI, ...args], {
    env: { PATH, HOME, CI, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
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
      assert.equal(
        first.stdout.replace(/ to 127\.0\.0\.1:\d+\/notes_test_\w+\n$/, ''),
        `applied ${migrations.length} migration(s)`,
      )
      const again = await finished(cli(['migrate'], env))
      assert.match(again.stdout, /^applied 0 migration\(s\)/)
    })
  })
}

describe('notes-service serve with an unreachable database', () => {
  for (const args of [['serve'], ['serve', '--workers', '2']]) {
    it(`${args.join(' ')}: exits 1 with one line naming the database, not a stack trace`, async () => {
      const closed = await startTcpProxy('127.0.0.1', 1)
      closed.setMode('reset')
      const url = `postgres://postgres:hunter2@127.0.0.1:${closed.port}/notes`
      const result = await finished(cli(args, { DATABASE_URL: url, ACCESS_TOKEN_SECRET: TEST_SECRET, PORT: '0' }))
      await closed.close()
      assert.equal(result.code, 1)
      assert.match(
        result.stderr,
        new RegExp(`^notes-service: cannot reach PostgreSQL at 127\\.0\\.0\\.1:${closed.port}/notes: [^\\n]+\\n$`),
      )
      assert.doesNotMatch(result.stderr, /hunter2/)
    })
  }
})

describe('notes-service serve --workers 2 on a port already taken', { timeout: 60_000 }, () => {
  it('stops with exit code 1 instead of restarting workers that cannot start', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const port = (taken.address() as AddressInfo).port
    const dataDir = mkdtempSync(join(tmpdir(), 'notes-workers-'))
    try {
      const result = await finished(
        cli(['serve', '--workers', '2'], { HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir }),
      )
      assert.equal(result.code, 1)
      assert.match(result.stderr, /EADDRINUSE/)
      assert.match(result.stderr, /failed to start \(exit 1\); stopping\n/)
    } finally {
      taken.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

/** Collects a child's stdout JSON log lines and lets a test wait for one. */
function logLines(child: ChildProcess) {
  const entries: Array<{ pid: number; msg: string; path?: string; level?: number }> = []
  const waiting = new Set<() => void>()
  createInterface({ input: child.stdout! }).on('line', (line) => {
    entries.push(JSON.parse(line) as (typeof entries)[number])
    for (const wake of waiting) wake()
  })
  return {
    entries,
    async waitFor(count: number, test: (e: (typeof entries)[number]) => boolean) {
      while (entries.filter(test).length < count) await new Promise<void>((resolve) => waiting.add(resolve))
      waiting.clear()
      return entries.filter(test)
    },
  }
}

const LISTENING = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/

if (kinds.includes('postgresql')) {
  describe("notes-service serve (PostgreSQL): the change bus's listener in the log", { timeout: 60_000 }, () => {
    it('warns when the listener is lost and says when it is back', async () => {
      const db = await createTestDatabase()
      databases.push(db)
      const child = cli(['serve'], {
        HOST: '127.0.0.1',
        PORT: '0',
        DATABASE_URL: db.url,
        ACCESS_TOKEN_SECRET: TEST_SECRET,
      })
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
      const log = logLines(child)
      await log.waitFor(1, (e) => LISTENING.test(e.msg))
      const [live] = await log.waitFor(1, (e) => e.msg.startsWith('change bus is live'))
      assert.equal(live?.level, 30) // info
      const admin = new pg.Client({ connectionString: db.url })
      await admin.connect()
      try {
        const { rowCount } = await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'notes-service change listener' AND datname = current_database()",
        )
        assert.equal(rowCount, 1)
        const [lost] = await log.waitFor(1, (e) => e.msg.startsWith('change bus lost'))
        assert.equal(lost?.level, 40) // warn
        await log.waitFor(1, (e) => e.msg.startsWith('change bus is back'))
      } finally {
        await admin.end()
        child.kill('SIGTERM')
      }
      assert.equal(await exited, 0)
      // A graceful stop closes the listener on purpose: that is not logged as a loss.
      const count = (start: string) => log.entries.filter((e) => e.msg.startsWith(`change bus ${start}`)).length
      assert.deepEqual([count('is live'), count('lost'), count('is back')], [1, 1, 1])
      // The cache layer trusts no notice: there is nothing of the kind to say.
      assert.deepEqual(
        log.entries.filter((e) => /account notices/.test(e.msg)),
        [],
      )
    })
  })
}

if (kinds.includes('postgresql')) {
  describe('notes-service serve: a stop asked for while it starts', { timeout: 60_000 }, () => {
    it('closes gracefully once it has started, instead of dying on the signal', async () => {
      const db = await createTestDatabase()
      databases.push(db)
      const target = new URL(db.url)
      // A proxy that holds every connection until released: the server stays inside start-up.
      const held: Socket[] = []
      const sockets = new Set<Socket>()
      let released = false
      const forward = (client: Socket) => {
        const upstream = connect(Number(target.port), target.hostname)
        sockets.add(upstream)
        upstream.on('error', () => client.destroy())
        client.on('error', () => upstream.destroy())
        client.pipe(upstream).pipe(client)
      }
      let connectedOnce!: () => void
      const connected = new Promise<void>((resolve) => (connectedOnce = resolve))
      const proxy = createServer((client) => {
        sockets.add(client)
        if (released) return forward(client)
        client.pause()
        held.push(client)
        connectedOnce()
      })
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
      const url = new URL(db.url)
      url.hostname = '127.0.0.1'
      url.port = String((proxy.address() as AddressInfo).port)
      try {
        const child = cli(['serve'], {
          HOST: '127.0.0.1',
          PORT: '0',
          DATABASE_URL: url.toString(),
          ACCESS_TOKEN_SECRET: TEST_SECRET,
        })
        const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
        const log = logLines(child)
        // Its first connection comes from opening the store: its signal handlers are in place.
        await connected
        child.kill('SIGTERM')
        released = true
        for (const client of held.splice(0)) forward(client)
        assert.equal(await exited, 0)
        assert.equal(log.entries.filter((e) => LISTENING.test(e.msg)).length, 1)
        assert.equal(log.entries.filter((e) => e.msg === 'closing gracefully').length, 1)
      } finally {
        for (const socket of sockets) socket.destroy()
        await new Promise<void>((resolve) => proxy.close(() => resolve()))
      }
    })
  })
}

kinds.forEach((kind, i) => {
  // One run stops the way Ctrl-C does (SIGINT to the whole process group), the other with a
  // SIGTERM to the primary alone, as a service manager does.
  const stopBy = i === 0 ? 'SIGINT to the process group' : 'SIGTERM to the primary'
  describe(`notes-service serve --workers 2 (${kind})`, { timeout: 120_000 }, () => {
    it(`serves from two processes on one port with one brute-force limit, replaces a crashed worker, stops on ${stopBy}`, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'notes-workers-'))
      const env: Record<string, string> = {
        HOST: '127.0.0.1',
        PORT: '0',
        DATA_DIR: dataDir,
        LOGIN_FAILURES_PER_ACCOUNT_AND_CLIENT: '2',
      }
      if (kind === 'postgresql') {
        const db = await createTestDatabase()
        databases.push(db)
        Object.assign(env, { DATABASE_URL: db.url, ACCESS_TOKEN_SECRET: TEST_SECRET })
      }
      const child = cli(['serve', '--workers', '2'], env)
      let stderr = ''
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
      // 'close', not 'exit': by then every line the processes wrote has been read.
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
      const log = logLines(child)
      const listening = await log.waitFor(2, (e) => LISTENING.test(e.msg))
      const pids = new Set(listening.map((e) => e.pid))
      assert.equal(pids.size, 2)
      assert.ok(!pids.has(child.pid!))
      const port = Number(LISTENING.exec(listening[0]!.msg)![1])

      const email = uniqueEmail('workers')
      const attempt = async () =>
        (
          await fetch(`http://127.0.0.1:${port}/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', connection: 'close' },
            body: JSON.stringify({ email, password: 'wrong' }),
          })
        ).status
      // The kernel deals each new connection to either worker: attempts go on until both have answered some.
      const statuses: number[] = []
      let servedBy = new Set<number>()
      while (statuses.length < 4 || (servedBy.size < 2 && statuses.length < 40)) {
        statuses.push(await attempt())
        // Request lines are logged after the answer is sent: wait for this one's.
        servedBy = new Set((await log.waitFor(statuses.length, (e) => e.path === '/login')).map((e) => e.pid))
      }
      assert.equal(servedBy.size, 2, 'both workers answered')
      assert.deepEqual(statuses, [400, 400, ...statuses.slice(2).map(() => 429)])

      // A worker that dies after it started serving is replaced.
      const [victim] = pids
      process.kill(victim!, 'SIGKILL')
      const relisted = await log.waitFor(3, (e) => LISTENING.test(e.msg))
      assert.ok(!pids.has(relisted[2]!.pid))
      assert.match(stderr, new RegExp(`worker ${victim} exited \\(SIGKILL\\); starting a new one`))
      assert.equal(await attempt(), 429)

      if (i === 0) process.kill(-child.pid!, 'SIGINT')
      else child.kill('SIGTERM')
      assert.equal(await exited, 0)
      const closed = log.entries.filter((e) => e.msg === 'closing gracefully').map((e) => e.pid)
      assert.equal(closed.length, 2, 'each worker closed gracefully, once')
      assert.doesNotMatch(stderr, /second SIG/)
      rmSync(dataDir, { recursive: true, force: true })
    })
  })
})
