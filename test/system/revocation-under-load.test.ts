// "Once a revocation has answered, nothing from the ended session takes effect", at any load: real
// servers (two instances on one PostgreSQL database; one on SQLite) are kept busy by many
// concurrent requests of the session about to end, on every instance, while it is ended through
// the API of one instance (delete-session, logout-everywhere) or by the operator's CLI
// (`users revoke-sessions`, `users delete`). Every request sent after the revocation answered
// (its response read, or the CLI exited) must be refused, on every instance; the requests in
// flight meanwhile may go either way. Busy processes beside the servers take CPU from them, and
// on PostgreSQL the second instance reaches the database through a proxy that passes its
// notices 300 ms late, as a listener on a machine short of CPU gets them: an instance must not
// take a notice that has not come for proof that nothing changed.
import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { runCli } from '../support/cli.js'
import { type ChildServer, startChild } from '../support/child-server.js'
import { TEST_SECRET, uniqueEmail } from '../support/harness.js'
import { type TestDatabase, createTestDatabase } from '../support/services.js'
import { storeKinds } from '../support/stores.js'
import { type NoticeFilter, startNoticeFilter } from '../support/notice-filter.js'

const PASSWORD = 'correct horse battery staple'
/** Loops per instance, each sending the ended session's next request as soon as the last is answered. */
const LOOPS = 24
/** Answers each loop waits for before the revocation, and after it. */
const BEFORE = 8
const AFTER = 8
const REVOCATIONS = ['delete-session', 'revoke-sessions', 'logout-everywhere', 'delete'] as const
type Revocation = (typeof REVOCATIONS)[number]

const databases: TestDatabase[] = []
after(async () => Promise.all(databases.map((d) => d.drop())))

async function call(
  base: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const headers: Record<string, string> = {}
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

/** Processes that only burn CPU, as other work on the same machine would. */
function busyProcesses(count: number): ChildProcess[] {
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }))
}

interface Sent {
  base: string
  path: string
  sentAt: number
  status: number
}

/**
 * Ends the victim's session with `revoke` while LOOPS loops per instance send its requests; the requests sent after
 * `revoke` resolved that were answered 200.
 */
async function racedRound(bases: string[], victim: string, revoke: () => Promise<void>): Promise<Sent[]> {
  const sent: Sent[] = []
  let answeredAt = Infinity
  let ready = 0
  let wake = () => {}
  const loop = async (base: string, i: number) => {
    let afterwards = 0
    for (let n = 0; afterwards < AFTER; n++) {
      // Reads and a write: a write answered 200 would be a note added by an ended session.
      const path = n % 4 === 3 ? '/add-note' : n % 2 === 0 ? '/get-user' : '/get-all-notes'
      const sentAt = performance.now()
      const body = path === '/add-note' ? { title: `loop ${i}`, content: String(n) } : undefined
      // 0: no answer (the connection failed); reported with the servers' output.
      const status = await call(base, path === '/add-note' ? 'POST' : 'GET', path, victim, body).then(
        (r) => r.status,
        () => 0,
      )
      sent.push({ base, path, sentAt, status })
      if (n === BEFORE || status === 0) {
        ready++
        wake()
      }
      if (status === 0) break
      if (sentAt > answeredAt) afterwards++
      // A loop refused before the revocation answered (the end already seen) keeps going until it is past.
      if (status === 401 && answeredAt === Infinity) await new Promise((resolve) => setTimeout(resolve, 5))
    }
  }
  const loops = bases.flatMap((base) => Array.from({ length: LOOPS }, (_, i) => loop(base, i)))
  while (ready < loops.length) await new Promise<void>((resolve) => (wake = resolve))
  await revoke()
  answeredAt = performance.now()
  await Promise.all(loops)
  assert.deepEqual(
    sent.filter((s) => s.status === 0 || s.status >= 500),
    [],
    'every request answered, none with a 5xx',
  )
  const before = sent.filter((s) => s.sentAt < answeredAt)
  assert.ok(
    before.some((s) => s.status === 200),
    'the session was in use before its end',
  )
  return sent.filter((s) => s.sentAt > answeredAt && s.status === 200)
}

for (const kind of storeKinds()) {
  describe(`revocation under load (${kind})`, { timeout: 600_000 }, () => {
    it('refuses, on every instance, every request of an ended session sent after its end answered', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'notes-revocation-'))
      const env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: 'silent', ACCESS_TOKEN_SECRET: TEST_SECRET }
      if (kind === 'postgresql') {
        const db = await createTestDatabase()
        databases.push(db)
        Object.assign(env, { DATABASE_URL: db.url, DATABASE_POOL_SIZE: '4' })
      }
      const servers: ChildServer[] = []
      const busy = busyProcesses(2)
      let late: NoticeFilter | undefined
      try {
        servers.push(await startChild({ dataDir, env }))
        // A second instance on PostgreSQL, its notices late; SQLite has one server process (its CLI is the other).
        if (kind === 'postgresql') {
          const target = new URL(env.DATABASE_URL!)
          late = await startNoticeFilter(target.hostname, Number(target.port || 5432))
          late.delayNoticesMs = 300
          const url = new URL(env.DATABASE_URL!)
          url.hostname = '127.0.0.1'
          url.port = String(late.port)
          servers.push(await startChild({ dataDir, env: { ...env, DATABASE_URL: url.toString() } }))
        }
        const bases = servers.map((s) => s.base)
        const first = bases[0]!
        const last = bases.at(-1)!
        const broken: string[] = []
        for (let round = 0; round < REVOCATIONS.length; round++) {
          const how: Revocation = REVOCATIONS[round % REVOCATIONS.length]!
          const email = uniqueEmail('revoked')
          const created = await call(first, 'POST', '/create-account', undefined, {
            fullName: 'Revoked',
            email,
            password: PASSWORD,
          })
          assert.equal(created.status, 200, JSON.stringify(created.json))
          const other = created.json.accessToken as string
          const login = await call(last, 'POST', '/login', undefined, { email, password: PASSWORD })
          assert.equal(login.status, 200)
          const victim = login.json.accessToken as string
          const sid = (JSON.parse(Buffer.from(victim.split('.')[1]!, 'base64url').toString()) as { sid: string }).sid
          const revoke = async () => {
            if (how === 'delete-session')
              assert.equal((await call(first, 'DELETE', `/delete-session/${sid}`, other)).status, 200)
            else if (how === 'logout-everywhere')
              assert.equal((await call(first, 'POST', '/logout-everywhere', other)).status, 200)
            else {
              const run = await runCli(
                how === 'delete' ? ['users', 'delete', email, '--yes'] : ['users', how, email],
                env,
              )
              assert.equal(run.code, 0, run.stderr)
            }
          }
          const served = await racedRound(bases, victim, revoke)
          if (served.length > 0)
            broken.push(
              `${how}: ${served.length} answered 200 after it answered (${served.map((s) => s.path).join(', ')})`,
            )
        }
        assert.deepEqual(broken, [], 'no request of an ended session is served once its end has answered')
      } catch (err) {
        const exited = servers.filter((s) => s.process.exitCode !== null || s.process.signalCode !== null)
        await new Promise((resolve) => setTimeout(resolve, 500))
        throw new Error(`${String(err)} ${exited.length}:\n${servers.map((s) => s.output()).join('\n')}`)
      } finally {
        for (const p of busy) p.kill('SIGKILL')
        await Promise.all(servers.map((s) => s.stop()))
        await late?.close()
        rmSync(dataDir, { recursive: true, force: true })
      }
    })
  })
}
