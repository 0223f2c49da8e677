// PUT /change-password and DELETE /delete-account check a password with a token in hand
// (docs/security.md, "Brute-force limits"): wrong ones count per session, never toward the
// login's limits, so a stolen token cannot lock its owner out of login; the session that has
// sent PASSWORD_FAILURES_PER_SESSION wrong passwords ends. On both stores, inject and over a
// socket; client addresses from X-Forwarded-For (TRUST_PROXY on).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { type BruteForceConfig, defaultConfig } from '../../src/config.js'
import { createTokenService } from '../../src/services/tokens.js'
import { type Account, type Harness, TEST_SECRET, register, startHarness, targets } from '../support/harness.js'

const WRONG = 'not the password'
const SESSION_LIMIT = 3
const PAIR_LIMIT = 2

for (const { mode, storeKind } of targets()) {
  describe(`password checks of a signed-in session are limited per session (${mode}, ${storeKind})`, () => {
    let h: Harness
    before(async () => {
      const bruteForce: BruteForceConfig = {
        ...defaultConfig.bruteForce,
        pairLimit: PAIR_LIMIT,
        emailLimit: 1000,
        ipLimit: 1000,
        sessionLimit: SESSION_LIMIT,
      }
      h = await startHarness(mode, { storeKind, config: { trustProxy: true, bruteForce } })
    })
    after(async () => h.close())

    const from = (ip: string) => ({ 'x-forwarded-for': ip })
    const changePassword = (token: string, currentPassword: string, ip: string) =>
      h.client.request('PUT', '/change-password', {
        token,
        body: { currentPassword, newPassword: 'a new one, long enough' },
        headers: from(ip),
      })
    const deleteAccount = (token: string, password: string, ip: string) =>
      h.client.request('DELETE', '/delete-account', { token, body: { password }, headers: from(ip) })
    const login = (a: Account, password: string, ip: string) =>
      h.client.request('POST', '/login', { body: { email: a.email, password }, headers: from(ip) })
    const tokenOf = async (a: Account, ip: string) =>
      ((await login(a, a.password, ip)).json as { accessToken: string }).accessToken
    const status = async (token: string) => (await h.client.request('GET', '/get-user', { token })).status

    for (const [name, attempt] of [
      ['PUT /change-password', changePassword],
      ['DELETE /delete-account', deleteAccount],
    ] as const) {
      it(`${name}: the session that sent ${SESSION_LIMIT} wrong passwords ends; the owner's login and other sessions go on`, async () => {
        const a = await register(h.client)
        const other = await tokenOf(a, '10.9.0.9')
        for (let i = 0; i < SESSION_LIMIT; i++) {
          const res = await attempt(a.token, WRONG, '10.9.0.1')
          assert.deepEqual(
            [res.status, res.json],
            [400, { error: true, message: 'Invalid Credentials' }],
            `attempt ${i + 1}`,
          )
        }
        assert.equal(await status(a.token), 401, 'the session ended')
        const after = await attempt(a.token, a.password, '10.9.0.1')
        assert.deepEqual([after.status, after.text], [401, 'Unauthorized'], 'nothing more is checked with it')
        // More failures than the login's pair limit, yet the owner logs in from the same address.
        assert.equal((await login(a, a.password, '10.9.0.1')).status, 200, 'login from the same client')
        assert.equal(await status(other), 200, 'another session of the account goes on')
        // Another session has its own count: the right password passes.
        assert.equal((await attempt(other, a.password, '10.9.0.2')).status, 200, `${name} from another session`)
      })
    }

    it('right passwords never count: only the wrong ones add up to the limit', async () => {
      const a = await register(h.client)
      for (let i = 0; i < SESSION_LIMIT - 1; i++)
        assert.equal((await changePassword(a.token, WRONG, '10.9.2.1')).status, 400)
      let current = a.password
      for (let round = 0; round < SESSION_LIMIT + 2; round++) {
        const next = `password number ${round}`
        const res = await h.client.request('PUT', '/change-password', {
          token: a.token,
          body: { currentPassword: current, newPassword: next },
        })
        assert.equal(res.status, 200, `change ${round}: ${res.text}`)
        current = next
      }
      assert.equal(await status(a.token), 200, "successes used none of the session's failures")
      assert.equal((await changePassword(a.token, WRONG, '10.9.2.1')).status, 400)
      assert.equal(await status(a.token), 401, 'the last wrong password allowed ended it')
    })

    it('failed logins do not stop a signed-in session from changing its password', async () => {
      const a = await register(h.client)
      for (let i = 0; i < PAIR_LIMIT; i++) assert.equal((await login(a, WRONG, '10.9.1.1')).status, 400)
      assert.equal((await login(a, a.password, '10.9.1.1')).status, 429, 'the pair is throttled at login')
      assert.equal((await changePassword(a.token, a.password, '10.9.1.1')).status, 200)
    })

    it('a token without a session counts per account; at the limit every such token of the account ends', async () => {
      const a = await register(h.client)
      const user = (
        (await h.client.request('GET', '/get-user', { token: a.token })).json as {
          user: { _id: string; fullName: string; email: string; createdOn: string }
        }
      ).user
      const issuer = createTokenService(TEST_SECRET)
      const old = issuer.issue(user)
      const older = issuer.issue(user)
      for (let i = 0; i < SESSION_LIMIT; i++) assert.equal((await changePassword(old, WRONG, '10.9.3.1')).status, 400)
      assert.equal(await status(old), 401)
      assert.equal(await status(older), 401, 'every token without a session ended')
      assert.equal(await status(a.token), 200, 'sessions go on')
    })
  })
}
