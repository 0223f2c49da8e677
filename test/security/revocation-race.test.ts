// Revocation is final (docs/accounts.md): once a revocation has answered, nothing from the
// sessions it ended takes effect. A thief's slow request (change-password, delete-account,
// edit-user: argon2id at the deployment's cost makes the first two slow) races the owner's
// revocation (logout-everywhere, delete-session of the thief's session, or the owner's own
// change-password), sent after a random delay, over a real socket, on both stores. The account
// as stored right after the revocation answered must be the account as stored at the end: a
// write of the thief that committed later would show as a difference.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { defaultConfig } from '../../src/config.js'
import type { UserRecord } from '../../src/store/types.js'
import { type Account, type Harness, type Reply, register, startHarness } from '../support/harness.js'
import { storeKinds } from '../support/stores.js'

const THIEF_ACTIONS = ['change-password', 'delete-account', 'edit-user'] as const
const REVOCATIONS = ['logout-everywhere', 'delete-session', 'change-password'] as const

const ROUNDS = 50

/** What a thief's or an owner's write can change: the hash and the name, or nothing left. */
const stateOf = (user: UserRecord | undefined) =>
  user ? { passwordHash: user.passwordHash, fullName: user.fullName } : 'deleted'

for (const storeKind of storeKinds()) {
  describe(`revocation is final (${storeKind}, over a socket)`, { timeout: 300_000 }, () => {
    let h: Harness
    before(async () => {
      // The deployment's argon2id cost: the thief's request is as slow as in production.
      h = await startHarness('http', { storeKind, config: { passwordHashing: defaultConfig.passwordHashing } })
    })
    after(async () => h.close())

    const login = async (a: Account) => {
      const res = await h.client.request('POST', '/login', { body: { email: a.email, password: a.password } })
      return (res.json as { accessToken: string }).accessToken
    }
    const sidOf = (token: string) =>
      (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sid: string }).sid

    function thief(action: (typeof THIEF_ACTIONS)[number], a: Account, token: string): Promise<Reply> {
      if (action === 'change-password')
        return h.client.request('PUT', '/change-password', {
          token,
          body: { currentPassword: a.password, newPassword: 'the thief chose this' },
        })
      if (action === 'delete-account')
        return h.client.request('DELETE', '/delete-account', { token, body: { password: a.password } })
      return h.client.request('PUT', '/edit-user', { token, body: { fullName: 'Renamed by a thief' } })
    }

    function revoke(revocation: (typeof REVOCATIONS)[number], a: Account, thiefToken: string): Promise<Reply> {
      if (revocation === 'logout-everywhere') return h.client.request('POST', '/logout-everywhere', { token: a.token })
      if (revocation === 'delete-session')
        return h.client.request('DELETE', `/delete-session/${sidOf(thiefToken)}`, { token: a.token })
      return h.client.request('PUT', '/change-password', {
        token: a.token,
        body: { currentPassword: a.password, newPassword: 'the owner chose this' },
      })
    }

    it(`a request of an ended session never takes effect after the revocation answered (${ROUNDS} rounds)`, async () => {
      const outcomes = new Map<string, number>()
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...THIEF_ACTIONS),
          fc.constantFrom(...REVOCATIONS),
          fc.integer({ min: 0, max: 150 }),
          async (action, revocation, delayMs) => {
            const a = await register(h.client)
            const stolen = await login(a)
            const slow = thief(action, a, stolen)
            await new Promise((resolve) => setTimeout(resolve, delayMs))
            const revoked = await revoke(revocation, a, stolen)
            const whenRevoked = stateOf(await h.store.findUserById(a.userId))
            const stolenReply = await slow
            assert.deepEqual(
              stateOf(await h.store.findUserById(a.userId)),
              whenRevoked,
              `${action} against ${revocation} after ${delayMs} ms: ${stolenReply.status} / ${revoked.status}`,
            )
            // Whichever ended the other's session first won; a loser answers the bare 401.
            for (const r of [stolenReply, revoked])
              assert.ok(r.status === 200 || (r.status === 401 && r.text === 'Unauthorized'), `${r.status} ${r.text}`)
            const key = `${action}/${revocation}: ${stolenReply.status}/${revoked.status}`
            outcomes.set(key, (outcomes.get(key) ?? 0) + 1)
          },
        ),
        { numRuns: ROUNDS },
      )
      // Both orders happened: the race was run, not only one side of it.
      const statuses = [...outcomes.keys()].map((k) => k.split(': ')[1])
      assert.ok(
        statuses.some((s) => s?.startsWith('401/')),
        JSON.stringify([...outcomes]),
      )
      assert.ok(
        statuses.some((s) => s?.startsWith('200/')),
        JSON.stringify([...outcomes]),
      )
    })

    it('20 password changes at once from 20 sessions: exactly one wins, and its password is the one kept', async () => {
      const a = await register(h.client)
      const tokens = [a.token, ...(await Promise.all(Array.from({ length: 19 }, () => login(a))))]
      const replies = await Promise.all(
        tokens.map((token, i) =>
          h.client.request('PUT', '/change-password', {
            token,
            body: { currentPassword: a.password, newPassword: `new password ${i}` },
          }),
        ),
      )
      const won = replies.flatMap((r, i) => (r.status === 200 ? [i] : []))
      assert.equal(won.length, 1, replies.map((r) => r.status).join(' '))
      for (const r of replies) if (r.status !== 200) assert.deepEqual([r.status, r.text], [401, 'Unauthorized'])
      const winner = won[0]!
      assert.equal(
        (await h.client.request('POST', '/login', { body: { email: a.email, password: `new password ${winner}` } }))
          .status,
        200,
      )
      assert.equal(
        (await h.client.request('GET', '/get-user', { token: tokens[winner]! })).status,
        200,
        "the winner's session goes on",
      )
      const others = await Promise.all(
        tokens.filter((_, i) => i !== winner).map((token) => h.client.request('GET', '/get-user', { token })),
      )
      assert.deepEqual(new Set(others.map((r) => r.status)), new Set([401]))
    })
  })
}
