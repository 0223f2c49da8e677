// Brute-force protection (docs/security.md, "Brute-force limits"): failures are counted and throttled with 429 and
// Retry-After; successes never count; the feature can be switched off.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { defaultConfig } from '../src/config.js'
import { LOGIN_THROTTLED, REGISTRATION_THROTTLED } from '../src/services/brute-force.js'
import { MODES, register, startHarness } from './support/harness.js'

const small = { ...defaultConfig.bruteForce, pairLimit: 3, emailLimit: 5, ipLimit: 7, registrationIpLimit: 2 }

for (const mode of MODES) {
  describe(`brute-force protection (${mode})`, () => {
    it('throttles a pair after its failures, even for the right password, and not other accounts', async () => {
      const h = await startHarness(mode, { config: { bruteForce: small } })
      try {
        const victim = await register(h.client)
        const bystander = await register(h.client)
        const login = (email: string, password: string) =>
          h.client.request('POST', '/login', { body: { email, password } })
        for (let i = 0; i < 10; i++)
          assert.equal((await login(victim.email, victim.password)).status, 200, 'successes never count')
        for (let i = 0; i < small.pairLimit; i++) assert.equal((await login(victim.email, 'wrong')).status, 400)
        const blocked = await login(victim.email, victim.password)
        assert.equal(blocked.status, 429)
        assert.deepEqual(blocked.json, { error: true, message: LOGIN_THROTTLED })
        const retryAfter = Number(blocked.headers['retry-after'])
        assert.ok(retryAfter >= 1 && retryAfter <= small.windowSeconds, `Retry-After ${retryAfter}`)
        assert.equal((await login(victim.email.toUpperCase(), victim.password)).status, 429, 'the email is normalised')
        assert.equal((await login(bystander.email, bystander.password)).status, 200)
      } finally {
        await h.close()
      }
    })

    it('throttles "User already exists" answers per client', async () => {
      const h = await startHarness(mode, { config: { bruteForce: small } })
      try {
        const taken = await register(h.client)
        const again = () =>
          h.client.request('POST', '/create-account', { body: { fullName: 'X', email: taken.email, password: 'p' } })
        for (let i = 0; i < small.registrationIpLimit; i++) {
          assert.deepEqual((await again()).json, { error: true, message: 'User already exists' })
        }
        const blocked = await again()
        assert.equal(blocked.status, 429)
        assert.deepEqual(blocked.json, { error: true, message: REGISTRATION_THROTTLED })
        assert.ok(Number(blocked.headers['retry-after']) >= 1)
      } finally {
        await h.close()
      }
    })

    it('never throttles when switched off', async () => {
      const h = await startHarness(mode, { config: { bruteForce: { ...small, enabled: false } } })
      try {
        const victim = await register(h.client)
        for (let i = 0; i < small.ipLimit + 2; i++) {
          const res = await h.client.request('POST', '/login', { body: { email: victim.email, password: 'wrong' } })
          assert.equal(res.status, 400)
        }
        const ok = await h.client.request('POST', '/login', {
          body: { email: victim.email, password: victim.password },
        })
        assert.equal(ok.status, 200)
      } finally {
        await h.close()
      }
    })
  })
}
