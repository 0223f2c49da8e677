// Session ids are 128 random bits (services/ids.ts, docs/accounts.md "Session ids"): nothing in
// them tells the time, the process or the order of logins. Sessions made before, with ObjectId
// ids, keep working until they end.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ObjectId } from 'bson'
import { newSessionId } from '../src/services/ids.js'
import { SessionService } from '../src/services/sessions.js'
import { createTokenService } from '../src/services/tokens.js'
import { type Harness, TEST_SECRET, register, startHarness } from './support/harness.js'
import { storeKinds } from './support/stores.js'

const COUNT = 10_000

/** The longest run of leading characters two of the ids share. */
function longestSharedPrefix(ids: string[]): number {
  const sorted = [...ids].sort()
  let longest = 0
  for (let i = 1; i < sorted.length; i++) {
    const [a, b] = [sorted[i - 1]!, sorted[i]!]
    let n = 0
    while (n < a.length && a[n] === b[n]) n++
    longest = Math.max(longest, n)
  }
  return longest
}

/** For each of the 128 bits, how many of the ids have it set. */
function onesPerBit(ids: string[]): number[] {
  const ones = new Array<number>(128).fill(0)
  for (const id of ids) {
    const bytes = Buffer.from(id, 'hex')
    for (let bit = 0; bit < 128; bit++) if ((bytes[bit >> 3]! >> (7 - (bit & 7))) & 1) ones[bit]!++
  }
  return ones
}

describe('session ids', () => {
  const sessions = new SessionService(undefined as never)
  const ids = Array.from({ length: COUNT }, () => sessions.newSession('0'.repeat(24), undefined)._id)

  it('are 32 lower-case hex characters (128 bits), all different', () => {
    for (const id of ids) assert.match(id, /^[0-9a-f]{32}$/)
    assert.equal(new Set(ids).size, COUNT)
  })

  it(`no two of ${COUNT} share a prefix longer than chance allows`, () => {
    // Of n random ids, some pair shares k leading hex digits with probability at most
    // n²/2 · 16^-k: 3e-8 for k = 13. ObjectIds made in one second share their first 8 or more.
    assert.ok(longestSharedPrefix(ids) <= 12, `longest shared prefix: ${longestSharedPrefix(ids)}`)
    const objectIds = Array.from({ length: COUNT }, () => new ObjectId().toHexString())
    assert.ok(longestSharedPrefix(objectIds) > 12, 'the check tells ObjectIds apart')
  })

  it('none is derived from time or a counter: every bit is set in about half of them', () => {
    // Binomial(10 000, ½): σ = 50; 6σ either side fails a random source about once in 5e8 per bit.
    for (const [bit, n] of onesPerBit(ids).entries())
      assert.ok(Math.abs(n - COUNT / 2) <= 300, `bit ${bit} is set in ${n} of ${COUNT}`)
    // The same check refuses time- and counter-based ids: an ObjectId's time bits barely move.
    const objectIds = Array.from({ length: 1000 }, () => new ObjectId().toHexString() + '00000000')
    assert.ok(onesPerBit(objectIds).some((n) => Math.abs(n - 500) > 95))
    // Two made in the same millisecond, with the clock held still, share nothing more than chance.
    const now = Date.now
    Date.now = () => 1_700_000_000_000
    try {
      assert.ok(longestSharedPrefix([newSessionId(), newSessionId()]) <= 8)
    } finally {
      Date.now = now
    }
  })

  for (const storeKind of storeKinds()) {
    describe(`a session made before, with an ObjectId id (${storeKind})`, () => {
      let h: Harness
      before(async () => {
        h = await startHarness('inject', { storeKind })
      })
      after(async () => h.close())

      it('keeps working, is listed, and can be ended by its id', async () => {
        const a = await register(h.client)
        const old = {
          _id: new ObjectId().toHexString(),
          userId: a.userId,
          createdOn: new Date().toISOString(),
          lastUsedOn: new Date().toISOString(),
          client: 'an old client',
        }
        assert.equal(
          await h.store.createSession(old, { createdBefore: '2000-01-01T00:00:00.000Z', keepMost: 100 }),
          true,
        )
        const user = (
          (await h.client.request('GET', '/get-user', { token: a.token })).json as {
            user: { _id: string; fullName: string; email: string; createdOn: string }
          }
        ).user
        const token = createTokenService(TEST_SECRET).issue(user, old._id)
        assert.equal((await h.client.request('GET', '/get-user', { token })).status, 200)
        const listed = (await h.client.request('GET', '/get-sessions', { token: a.token })).json as {
          sessions: Array<{ _id: string }>
        }
        assert.ok(listed.sessions.some((s) => s._id === old._id))
        assert.equal((await h.client.request('DELETE', `/delete-session/${old._id}`, { token: a.token })).status, 200)
        assert.equal((await h.client.request('GET', '/get-user', { token })).status, 401)
      })
    })
  }
})
