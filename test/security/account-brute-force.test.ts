// PUT /change-password and DELETE /delete-account check a password, so they are held to the
// login's brute-force limits (docs/accounts.md): a wrong password counts as a failed login, with
// the same counters, and past a limit they answer 429 with Retry-After, even with the right
// password, until the window passes. On both stores, inject and over a socket; client addresses
// from X-Forwarded-For (TRUST_PROXY on), as test/security/brute-force.test.ts does.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type BruteForceConfig, defaultConfig } from '../../src/config.js'
import { LOGIN_THROTTLED } from '../../src/services/brute-force.js'
import { type Account, type Harness, type Reply, register, startHarness, targets } from '../support/harness.js'

const WRONG = 'not the password'
const PAIR_LIMIT = 3

function assertThrottled(res: Reply, what: string) {
  assert.equal(res.status, 429, `${what}: ${res.status} ${res.text}`)
  assert.deepEqual(res.json, { error: true, message: LOGIN_THROTTLED }, what)
  assert.ok(Number(res.headers['retry-after']) >= 1, `${what}: Retry-After ${String(res.headers['retry-after'])}`)
}

for (const { mode, storeKind } of targets()) {
  describe(`password checks of account management are brute-force limited (${mode}, ${storeKind})`, () => {
    let h: Harness
    before(async () => {
      const bruteForce: BruteForceConfig = { ...defaultConfig.bruteForce, pairLimit: PAIR_LIMIT, emailLimit: 1000, ipLimit: 1000 }
      h = await startHarness(mode, { storeKind, config: { trustProxy: true, bruteForce } })
    })
    after(async () => h.close())

    const from = (ip: string) => ({ 'x-forwarded-for': ip })
    const changePassword = (a: Account, currentPassword: string, ip: string) =>
      h.client.request('PUT', '/change-password', { token: a.token, body: { currentPassword, newPassword: 'a new one' }, headers: from(ip) })
    const deleteAccount = (a: Account, password: string, ip: string) =>
      h.client.request('DELETE', '/delete-account', { token: a.token, body: { password }, headers: from(ip) })
    const login = (a: Account, password: string, ip: string) => h.client.request('POST', '/login', { body: { email: a.email, password }, headers: from(ip) })

    for (const [name, attempt] of [['PUT /change-password', changePassword], ['DELETE /delete-account', deleteAccount]] as const) {
      it(`${name}: wrong passwords count as failed logins; past the limit 429 even with the right one`, async () => {
        const a = await register(h.client)
        for (let i = 0; i < PAIR_LIMIT; i++) {
          const res = await attempt(a, WRONG, '10.9.0.1')
          assert.deepEqual([res.status, res.json], [400, { error: true, message: 'Invalid Credentials' }])
        }
        assertThrottled(await attempt(a, a.password, '10.9.0.1'), `${name} with the right password`)
        // The same counters as the login's: the pair is blocked there too.
        assertThrottled(await login(a, a.password, '10.9.0.1'), 'login from the same client')
        assert.equal((await h.client.request('GET', '/get-user', { token: a.token })).status, 200, 'nothing was changed')
        // Another client is not this pair: it passes.
        assert.equal((await attempt(a, a.password, '10.9.0.2')).status, 200, `${name} from another client`)
      })
    }

    it('failed logins count against PUT /change-password of the same account and client', async () => {
      const a = await register(h.client)
      for (let i = 0; i < PAIR_LIMIT; i++) assert.equal((await login(a, WRONG, '10.9.1.1')).status, 400)
      assertThrottled(await changePassword(a, a.password, '10.9.1.1'), 'change-password after failed logins')
    })
  })
}
