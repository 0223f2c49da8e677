// New passwords (docs/accounts.md, "Passwords"): POST /create-account accepts what the contract
// accepts (any non-empty password) unless MIN_PASSWORD_LENGTH is set; PUT /change-password asks
// for at least 8 characters, counted in code points, and a password other than the current one.
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import fc from 'fast-check'
import { defaultConfig, parseConfig } from '../src/config.js'
import { type Harness, register, startHarness, uniqueEmail } from './support/harness.js'

describe('password rules', () => {
  let h: Harness | undefined
  afterEach(async () => {
    await h?.close()
    h = undefined
  })
  const createAccount = (password: string) =>
    h!.client.request('POST', '/create-account', { body: { fullName: 'P', email: uniqueEmail('pw'), password } })

  it('create-account takes a one-character password by default, as the contract does', async () => {
    h = await startHarness('inject')
    assert.equal((await createAccount('x')).status, 200)
  })

  it('with MIN_PASSWORD_LENGTH, create-account refuses shorter passwords, by code points', async () => {
    h = await startHarness('inject', { config: { minPasswordLength: 10 } })
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', minLength: 1, maxLength: 14 }), async (password) => {
        const length = [...password].length
        const res = await createAccount(password)
        if (length < 10)
          assert.deepEqual(
            [res.status, res.json],
            [400, { error: true, message: 'Password must be at least 10 characters' }],
            JSON.stringify(password),
          )
        else assert.equal(res.status, 200, `${JSON.stringify(password)}: ${res.text}`)
      }),
      { numRuns: 40 },
    )
  })

  it('change-password: at least 8 code points, different from the current one; nothing counted or changed when refused', async () => {
    h = await startHarness('inject', { config: { bruteForce: { ...defaultConfig.bruteForce, sessionLimit: 1 } } })
    const a = await register(h.client)
    const change = (newPassword: string) =>
      h!.client.request('PUT', '/change-password', {
        token: a.token,
        body: { currentPassword: a.password, newPassword },
      })
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', minLength: 1, maxLength: 7 }), async (short) => {
        const res = await change(short)
        assert.deepEqual(
          [res.status, res.json],
          [400, { error: true, message: 'New password must be at least 8 characters' }],
        )
      }),
      { numRuns: 30 },
    )
    assert.deepEqual((await change(a.password)).json, {
      error: true,
      message: 'New password must be different from the current password',
    })
    // With a session limit of 1, one counted failure would have ended the session: none was counted.
    assert.equal((await h.client.request('GET', '/get-user', { token: a.token })).status, 200)
    assert.equal((await change('🔑'.repeat(8))).status, 200)
  })

  it('MIN_PASSWORD_LENGTH is read and checked like every setting', () => {
    assert.equal(parseConfig({ MIN_PASSWORD_LENGTH: '12' }).minPasswordLength, 12)
    assert.equal(parseConfig({}).minPasswordLength, 0)
    assert.throws(() => parseConfig({ MIN_PASSWORD_LENGTH: 'eight' }), /MIN_PASSWORD_LENGTH/)
    assert.throws(() => parseConfig({ MIN_PASSWORD_LENGTH: '5000' }), /MIN_PASSWORD_LENGTH/)
  })
})
