// Brute force (docs/security.md, "Brute-force limits"): failed logins are limited per
// (email, client) pair, per email and per client; duplicate registrations per client. Each limit
// is tested alone with small configured limits; client addresses come from X-Forwarded-For
// (TRUST_PROXY on). A real and an unknown email get the same answer after the same argon2 work;
// the timing comparison is printed by `npm run test:stress`.
import assert from 'node:assert/strict'
import { afterEach, describe, it, mock } from 'node:test'
import argon2 from 'argon2'
import { type BruteForceConfig, type Config, defaultConfig } from '../../src/config.js'
import { type Account, type Harness, register, startHarness, uniqueEmail } from '../support/harness.js'

const WRONG = 'not the password'

async function harnessWith(limits: Partial<BruteForceConfig>, config: Partial<Config> = {}): Promise<Harness> {
  const bruteForce: BruteForceConfig = {
    enabled: true,
    windowSeconds: 900,
    pairLimit: 1000,
    emailLimit: 1000,
    ipLimit: 1000,
    sessionLimit: 1000,
    registrationIpLimit: 1000,
    registrationsPerClient: 1000,
    registrationWindowSeconds: 900,
    ...limits,
  }
  return startHarness('inject', { config: { trustProxy: true, bruteForce, ...config } })
}

const login = (h: Harness, email: string, password: string, ip: string) =>
  h.client.request('POST', '/login', { body: { email, password }, headers: { 'x-forwarded-for': ip } })

function assertThrottled(res: Awaited<ReturnType<typeof login>>, what: string) {
  assert.equal(res.status, 429, `${what}: ${res.status} ${res.text}`)
  assert.equal((res.json as { error: boolean }).error, true)
  assert.ok(Number(res.headers['retry-after']) >= 1, `${what}: Retry-After ${String(res.headers['retry-after'])}`)
}

describe('brute-force limits', () => {
  let h: Harness | undefined
  afterEach(async () => {
    await h?.close()
    h = undefined
  })

  it('per (email, client) pair: blocks that pair, even with the right password, and nobody else', async () => {
    h = await harnessWith({ pairLimit: 3 })
    const a: Account = await register(h.client)
    for (let i = 0; i < 3; i++) assert.equal((await login(h, a.email, WRONG, '10.0.0.1')).status, 400)
    assertThrottled(await login(h, a.email, a.password, '10.0.0.1'), 'right password from the blocked pair')
    assertThrottled(await login(h, a.email.toUpperCase(), a.password, '10.0.0.1'), 'same email in other case')
    assert.equal((await login(h, a.email, a.password, '10.0.0.2')).status, 200, 'the account from another client')
    const b = await register(h.client)
    assert.equal((await login(h, b.email, b.password, '10.0.0.1')).status, 200, 'another account from the client')
  })

  it('per email: blocks the account from every client once failures from many clients add up', async () => {
    h = await harnessWith({ emailLimit: 4 })
    const a = await register(h.client)
    for (let i = 0; i < 4; i++) assert.equal((await login(h, a.email, WRONG, `10.0.1.${i}`)).status, 400)
    assertThrottled(await login(h, a.email, a.password, '10.0.1.99'), 'right password from a fresh client')
    const b = await register(h.client)
    assert.equal((await login(h, b.email, b.password, '10.0.1.99')).status, 200, 'other accounts are not affected')
  })

  it('per client: blocks a client that tries many emails, for every email, and no other client', async () => {
    h = await harnessWith({ ipLimit: 4 })
    const a = await register(h.client)
    for (let i = 0; i < 4; i++) assert.equal((await login(h, uniqueEmail('guess'), WRONG, '10.0.2.1')).status, 400)
    assertThrottled(await login(h, a.email, a.password, '10.0.2.1'), 'a real account from the guessing client')
    assert.equal((await login(h, a.email, a.password, '10.0.2.2')).status, 200)
  })

  it('per client for registrations: "User already exists" answers are limited, then 429', async () => {
    h = await harnessWith({ registrationIpLimit: 2 })
    const a = await register(h.client)
    const again = (ip: string, email = a.email) =>
      h!.client.request('POST', '/create-account', {
        body: { fullName: 'X', email, password: 'whatever pass' },
        headers: { 'x-forwarded-for': ip },
      })
    for (let i = 0; i < 2; i++)
      assert.deepEqual((await again('10.0.3.1')).json, { error: true, message: 'User already exists' })
    const blocked = await again('10.0.3.1', uniqueEmail('new'))
    assertThrottled(blocked, 'a new registration from the probing client')
    assert.equal((await again('10.0.3.2', uniqueEmail('new'))).status, 200, 'other clients still register')
  })

  it('never counts successes: many good logins stay far under a limit of 3', async () => {
    h = await harnessWith({ pairLimit: 3, emailLimit: 3, ipLimit: 3 })
    const a = await register(h.client)
    for (let i = 0; i < 8; i++) assert.equal((await login(h, a.email, a.password, '10.0.4.1')).status, 200)
  })
})

describe('account enumeration', () => {
  afterEach(() => mock.restoreAll())

  it('answers an unknown email exactly like a wrong password, after an argon2id verification of the same cost', async () => {
    // The deployment's cost: the point is that both paths pay exactly it.
    const h = await harnessWith({}, { passwordHashing: defaultConfig.passwordHashing })
    try {
      const a = await register(h.client)
      const verify = mock.method(argon2, 'verify')
      const real = await login(h, a.email, WRONG, '10.0.5.1')
      const unknown = await login(h, uniqueEmail('nobody'), WRONG, '10.0.5.1')
      assert.equal(real.status, 400)
      assert.equal(unknown.status, real.status)
      assert.equal(unknown.text, real.text)
      assert.equal(unknown.headers['content-type'], real.headers['content-type'])
      assert.equal(unknown.headers['content-length'], real.headers['content-length'])
      // Both paths ran argon2.verify once, against hashes of identical parameters (m, t, p).
      assert.equal(verify.mock.callCount(), 2)
      const params = verify.mock.calls.map((c) => String(c.arguments[0]).split('$').slice(1, 4).join('$'))
      assert.deepEqual(params, ['argon2id$v=19$m=19456,p=1,t=2', 'argon2id$v=19$m=19456,p=1,t=2'])
    } finally {
      await h.close()
    }
  })
})
