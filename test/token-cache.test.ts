// The verified-token cache of src/services/tokens.ts: a hit answers exactly what a full
// verification would at that moment (never a token past its exp or before its nbf), only tokens
// that passed verification are kept, and the cache stays within its size. The clock is mocked
// (Date.now, which fast-jwt reads too), so expiry is tested to the millisecond without waiting.
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it, mock } from 'node:test'
import { createSigner } from 'fast-jwt'
import { MAX_CLOCK_SKEW_MS, createTokenService } from '../src/services/tokens.js'
import { TEST_SECRET } from './support/harness.js'

const user = {
  _id: '0123456789abcdef01234567',
  fullName: 'Ada',
  email: 'ada@example.com',
  createdOn: '2024-01-01T00:00:00.000Z',
}
const START = 1_800_000_000_000 // a whole second, so iat and exp are START/1000 + n exactly

let now = START
beforeEach(() => {
  now = START
  mock.method(Date, 'now', () => now)
})
afterEach(() => mock.restoreAll())

/** A token signed now with the service's secret; `expiresIn` and `notBefore` in ms. */
function tokenFor(options: { expiresIn: number; notBefore?: number; name?: string }): string {
  const sign = createSigner({
    key: TEST_SECRET,
    algorithm: 'HS256',
    expiresIn: options.expiresIn,
    ...(options.notBefore ? { notBefore: options.notBefore } : {}),
  })
  return sign({ user: { ...user, fullName: options.name ?? user.fullName } })
}

describe('verified-token cache', () => {
  it('answers from the cache until exp, inclusive, and refuses the token one millisecond later', () => {
    const tokens = createTokenService(TEST_SECRET)
    const token = tokenFor({ expiresIn: 60_000 })
    const exp = START + 60_000
    assert.deepEqual(tokens.verify(token)?.user, user)
    assert.equal(tokens.cachedTokens, 1)
    now = exp
    assert.deepEqual(tokens.verify(token)?.user, user)
    // An uncached verification agrees at the boundary.
    assert.deepEqual(createTokenService(TEST_SECRET).verify(token)?.user, user)
    now = exp + 1
    assert.equal(tokens.verify(token), undefined)
    assert.equal(createTokenService(TEST_SECRET).verify(token), undefined)
    assert.equal(tokens.cachedTokens, 0, 'the expired entry is dropped')
    now = exp + 60_000
    assert.equal(tokens.verify(token), undefined)
  })

  it('honours nbf like a full verification, also when the clock goes back', () => {
    const tokens = createTokenService(TEST_SECRET)
    const token = tokenFor({ expiresIn: 60_000, notBefore: 10_000 })
    assert.equal(tokens.verify(token), undefined)
    assert.equal(tokens.cachedTokens, 0)
    now = START + 10_000
    assert.deepEqual(tokens.verify(token)?.user, user)
    assert.equal(tokens.cachedTokens, 1)
    now = START + 9_999
    assert.equal(tokens.verify(token), undefined)
  })

  it('refuses an iat more than MAX_CLOCK_SKEW_MS ahead, cached or not, also when the clock goes back', () => {
    const tokens = createTokenService(TEST_SECRET)
    const issuedAhead = (ms: number) => {
      now = START + ms
      const token = tokenFor({ expiresIn: 3_600_000 })
      now = START
      return token
    }
    assert.equal(tokens.verify(issuedAhead(MAX_CLOCK_SKEW_MS + 1000)), undefined, 'one second past the skew')
    assert.equal(tokens.verify(issuedAhead(86_400_000)), undefined, 'a day ahead')
    assert.equal(tokens.cachedTokens, 0)
    const atTheBound = issuedAhead(MAX_CLOCK_SKEW_MS)
    assert.deepEqual(tokens.verify(atTheBound)?.user, user)
    assert.equal(tokens.cachedTokens, 1)
    // The clock is set back a second: a full verification now refuses the token, and so does a hit.
    now = START - 1000
    assert.equal(createTokenService(TEST_SECRET).verify(atTheBound), undefined)
    assert.equal(tokens.verify(atTheBound), undefined)
  })

  it('keeps only tokens that passed verification', () => {
    const tokens = createTokenService(TEST_SECRET)
    const good = tokens.issue(user)
    const [head, body, sig] = good.split('.') as [string, string, string]
    const rejected = [
      createSigner({ key: 'another-secret-that-is-at-least-32-bytes!', algorithm: 'HS256', expiresIn: 60_000 })({
        user,
      }),
      `${head}.${body}.${sig.slice(0, -2)}AA`,
      `${good}x`,
      createSigner({ key: TEST_SECRET, algorithm: 'HS256' })({ user }), // no exp
      'a'.repeat(7000),
      'not.a.token',
    ]
    now = START - 120_000
    rejected.push(tokenFor({ expiresIn: 60_000 })) // expired by START
    now = START
    for (const token of rejected) assert.equal(tokens.verify(token), undefined, token.slice(0, 40))
    assert.equal(tokens.cachedTokens, 0)
    assert.deepEqual(tokens.verify(good)?.user, user)
    // A hit needs the whole string: the cached token with a changed signature is refused.
    for (const token of rejected.slice(1, 3)) assert.equal(tokens.verify(token), undefined)
    assert.equal(tokens.cachedTokens, 1)
  })

  it('stays within its size, and evicted tokens still verify', () => {
    const tokens = createTokenService(TEST_SECRET, { cacheSize: 3 })
    const issued = Array.from({ length: 5 }, (_, i) => tokenFor({ expiresIn: 60_000, name: `User ${i}` }))
    for (const [i, token] of issued.entries()) assert.equal(tokens.verify(token)?.user.fullName, `User ${i}`)
    assert.equal(tokens.cachedTokens, 3)
    for (const [i, token] of issued.entries()) assert.equal(tokens.verify(token)?.user.fullName, `User ${i}`)
    assert.equal(tokens.cachedTokens, 3)
  })
})
