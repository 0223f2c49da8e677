// The server as a user runs it: the generated secret, data and tokens across restarts,
// concurrent registrations, and the log lines.
import assert from 'node:assert/strict'
import { statSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { buildApp } from '../src/app.js'
import { SECRET_FILE, resolveSecret } from '../src/secret.js'
import { loggerOptions, startServer } from '../src/server.js'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { MODES, TEST_SECRET, logLinesInto, startHarness, testConfig, uniqueEmail } from './support/harness.js'
import { SERVICE_LIMITS } from './support/stores.js'
import { tempDir } from './support/temp.js'

describe('the access token secret', () => {
  const dir = tempDir()
  after(() => dir.remove())

  it('is generated once with mode 0600 and reused afterwards', () => {
    const first = resolveSecret(undefined, dir.path)
    assert.equal(first.generated, true)
    assert.ok(Buffer.byteLength(first.secret) >= 32)
    const file = join(dir.path, SECRET_FILE)
    assert.equal(statSync(file).mode & 0o777, 0o600)
    const second = resolveSecret(undefined, dir.path)
    assert.equal(second.generated, false)
    assert.equal(second.secret, first.secret)
  })

  it('comes from the configuration when given, and nothing is written', () => {
    const other = tempDir()
    try {
      assert.deepEqual(resolveSecret('x'.repeat(40), other.path), { secret: 'x'.repeat(40), generated: false })
      assert.throws(() => statSync(join(other.path, SECRET_FILE)))
    } finally {
      other.remove()
    }
  })

  it('refuses a secret file that was truncated', () => {
    const other = tempDir()
    try {
      writeFileSync(join(other.path, SECRET_FILE), 'short\n')
      assert.throws(() => resolveSecret(undefined, other.path), /shorter than 32 bytes/)
    } finally {
      other.remove()
    }
  })
})

describe('a restarted server', () => {
  const dir = tempDir()
  after(() => dir.remove())

  it('still serves the old data and accepts the old tokens', async () => {
    const config = testConfig({ dataDir: dir.path, port: 0, host: '127.0.0.1', logLevel: 'silent' })
    const first = await startServer(config)
    const base1 = `http://127.0.0.1:${(first.app.server.address() as AddressInfo).port}`
    const email = uniqueEmail()
    const reg = await fetch(`${base1}/create-account`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fullName: 'Restart', email, password: 'pw-restart' }),
    })
    const { accessToken } = (await reg.json()) as { accessToken: string }
    const add = await fetch(`${base1}/add-note`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ title: 'survives', content: 'a restart' }),
    })
    assert.equal(add.status, 200)
    await first.close()
    assert.equal(statSync(join(dir.path, 'notes.db')).mode & 0o777, 0o600)

    const second = await startServer(config)
    try {
      const base2 = `http://127.0.0.1:${(second.app.server.address() as AddressInfo).port}`
      const list = await fetch(`${base2}/get-all-notes`, { headers: { authorization: `Bearer ${accessToken}` } })
      assert.equal(list.status, 200)
      const { notes } = (await list.json()) as { notes: Array<{ title: string; content: string }> }
      assert.deepEqual(
        notes.map((n) => [n.title, n.content]),
        [['survives', 'a restart']],
      )
      const login = await fetch(`${base2}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'pw-restart' }),
      })
      assert.equal(login.status, 200)
    } finally {
      await second.close()
    }
  })
})

for (const mode of MODES) {
  describe(`concurrent registrations of one email (${mode})`, () => {
    it('create exactly one account', async () => {
      const h = await startHarness(mode)
      try {
        const email = uniqueEmail()
        const variants = [email, email.toUpperCase(), ` ${email}`, email, email, email]
        const replies = await Promise.all(
          variants.map((e, i) =>
            h.client.request('POST', '/create-account', { body: { fullName: `N${i}`, email: e, password: `pw${i}` } }),
          ),
        )
        const created = replies.filter((r) => (r.json as { error: boolean }).error === false)
        const refused = replies.filter((r) => (r.json as { message: string }).message === 'User already exists')
        assert.equal(created.length, 1)
        assert.equal(refused.length, variants.length - 1)
        assert.ok(replies.every((r) => r.status === 200))
      } finally {
        await h.close()
      }
    })
  })
}

describe('request logging', () => {
  it('writes one JSON line per request with no password, token or authorization header', async () => {
    const lines: string[] = []
    const stream = logLinesInto(lines)
    const store = openSqliteStore({ dataDir: ':memory:', limits: SERVICE_LIMITS })
    const app = await buildApp({
      config: testConfig(),
      store,
      secret: TEST_SECRET,
      logger: { ...loggerOptions('info'), stream },
    })
    try {
      const password = 'p4ssw0rd-that-must-not-leak'
      const email = uniqueEmail()
      const reg = await app.inject({
        method: 'POST',
        url: '/create-account',
        payload: { fullName: 'L', email, password },
      })
      const token = reg.json<{ accessToken: string }>().accessToken
      await app.inject({ method: 'POST', url: '/login', payload: { email, password: 'wrong-password-also-secret' } })
      await app.inject({
        method: 'GET',
        url: '/search-notes?query=private-search',
        headers: { authorization: `Bearer ${token}` },
      })
      await app.inject({ method: 'GET', url: '/get-user', headers: { authorization: `Bearer ${token}` } })
      const requestLines = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request')
      assert.equal(requestLines.length, 4)
      assert.deepEqual(
        requestLines.map((l) => l.statusCode),
        [200, 400, 200, 200],
      )
      assert.deepEqual(
        requestLines.map((l) => l.path),
        ['/create-account', '/login', '/search-notes', '/get-user'],
      )
      const all = lines.join('\n')
      for (const secret of [
        password,
        'wrong-password-also-secret',
        token,
        token.split('.')[2]!,
        'private-search',
        TEST_SECRET,
      ]) {
        assert.ok(!all.includes(secret), `log must not contain ${secret.slice(0, 12)}…`)
      }
      assert.doesNotMatch(all, /authorization/i)
    } finally {
      await app.close()
      await store.close()
    }
  })

  it('gives each request line its own request id', async () => {
    const lines: string[] = []
    const store = openSqliteStore({ dataDir: ':memory:', limits: SERVICE_LIMITS })
    const app = await buildApp({
      config: testConfig(),
      store,
      secret: TEST_SECRET,
      logger: { ...loggerOptions('info'), stream: logLinesInto(lines) },
    })
    try {
      await app.inject({ method: 'GET', url: '/get-user' })
      await app.inject({ method: 'GET', url: '/healthz' })
      const requests = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request')
      assert.deepEqual(
        requests.map((l) => [l.path, l.statusCode]),
        [
          ['/get-user', 401],
          ['/healthz', 200],
        ],
      )
      const ids = requests.map((l) => l.reqId)
      assert.ok(
        ids.every((id) => typeof id === 'string' && id.length > 0),
        `request ids: ${JSON.stringify(ids)}`,
      )
      assert.notEqual(ids[0], ids[1])
    } finally {
      await app.close()
      await store.close()
    }
  })

  it("redacts passwords and tokens in any line a request's logger writes", async () => {
    const lines: string[] = []
    const store = openSqliteStore({ dataDir: ':memory:', limits: SERVICE_LIMITS })
    const app = await buildApp({
      config: testConfig(),
      store,
      secret: TEST_SECRET,
      logger: { ...loggerOptions('info'), stream: logLinesInto(lines) },
    })
    app.get('/log-secrets', (request, reply) => {
      request.log.warn(
        {
          password: 'hunter2',
          currentPassword: 'hunter3',
          newPassword: 'hunter4',
          accessToken: 'eyJ.x.y',
          user: { password: 'nested', accessToken: 'eyJ.n.n' },
        },
        'secrets',
      )
      void reply.send({ ok: true })
    })
    try {
      await app.inject({ method: 'GET', url: '/log-secrets', headers: { authorization: 'Bearer eyJ.h.h' } })
      const line = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'secrets')
      assert.deepEqual(
        [line?.password, line?.currentPassword, line?.newPassword, line?.accessToken, line?.user],
        ['[redacted]', '[redacted]', '[redacted]', '[redacted]', { password: '[redacted]', accessToken: '[redacted]' }],
      )
      assert.equal(typeof line?.reqId, 'string')
      assert.doesNotMatch(lines.join('\n'), /hunter\d|eyJ\./)
    } finally {
      await app.close()
      await store.close()
    }
  })
})
