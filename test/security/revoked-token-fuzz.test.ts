// A revoked token never gets in: tokens whose session was logged out, ended from
// another session, ended by logout-everywhere or by a password change, whose account was
// deleted, and tokens without a session past their account's "not before" time, are fuzzed
// (fast-check) against every route a token opens, the contract's and the account-management
// ones, with any body, content type, chunking, path id and scheme word: every answer is the bare
// 401. Then the account-management routes are fuzzed with a live token: the contract's style,
// never 5xx. On both stores, through inject and over a real socket.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTokenService, type TokenUser } from '../../src/services/tokens.js'
import {
  type Account,
  type Harness,
  TEST_SECRET,
  addNote,
  register,
  startHarness,
  targets,
  testConfig,
} from '../support/harness.js'
import {
  AUTHENTICATED_ROUTES,
  NON_ENDING_ROUTES,
  accountProblems,
  fuzzWith,
  notBare401,
  tokenRequests,
} from '../support/scenarios/account-fuzz.js'
import { injectSender, socketSender } from '../support/scenarios/fuzz.js'

const RUNS = { inject: 600, http: 200 } as const

const sidOf = (token: string) =>
  (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sid: string }).sid

for (const { mode, storeKind } of targets()) {
  describe(`revoked tokens, fuzzed (${mode}, ${storeKind})`, () => {
    let h: Harness
    let revoked: Array<[string, string]>
    let ids: string[]
    let live: Account
    let liveOther: string
    before(async () => {
      h = await startHarness(mode, { storeKind })
      const call = async (method: string, path: string, token: string, body?: unknown) => {
        const res = await h.client.request(method, path, { token, ...(body === undefined ? {} : { body }) })
        assert.equal(res.status, 200, `${method} ${path}: ${res.text}`)
      }
      const login = async (a: Account) =>
        (
          (await h.client.request('POST', '/login', { body: { email: a.email, password: a.password } })).json as {
            accessToken: string
          }
        ).accessToken
      const userOf = async (a: Account) =>
        ((await h.client.request('GET', '/get-user', { token: a.token })).json as { user: TokenUser }).user

      // Each token is used once before it is revoked, so its signature check is cached.
      const loggedOut = await register(h.client)
      const note = await addNote(h.client, loggedOut.token, { title: 'kept', content: 'by another session' })
      const keeper = await login(loggedOut)
      await call('POST', '/logout', loggedOut.token)

      const endedByOther = await register(h.client)
      const ender = await login(endedByOther)
      await call('GET', '/get-user', endedByOther.token)
      await call('DELETE', `/delete-session/${sidOf(endedByOther.token)}`, ender)

      const everywhere = await register(h.client)
      const everywhereOther = await login(everywhere)
      const sessionless = createTokenService(TEST_SECRET).issue(await userOf(everywhere))
      await call('GET', '/get-user', sessionless)
      await call('POST', '/logout-everywhere', everywhere.token)

      const changed = await register(h.client)
      const changedOther = await login(changed)
      await call('GET', '/get-user', changedOther)
      await call('PUT', '/change-password', changed.token, {
        currentPassword: changed.password,
        newPassword: 'a new one, long enough',
      })

      const deleted = await register(h.client)
      const deletedOther = await login(deleted)
      await addNote(h.client, deleted.token, { title: 'gone', content: 'with the account' })
      await call('DELETE', '/delete-account', deleted.token, { password: deleted.password })

      revoked = [
        ['logged out', loggedOut.token],
        ['ended from another session', endedByOther.token],
        ['logout-everywhere (caller)', everywhere.token],
        ['logout-everywhere (other session)', everywhereOther],
        ['logout-everywhere (token without a session)', sessionless],
        ['other session after change-password', changedOther],
        ['deleted account (caller)', deleted.token],
        ['deleted account (other session)', deletedOther],
      ]
      // Ids the routes may be given: a live session's, the note of a revoked account that another of its sessions keeps.
      ids = [sidOf(keeper), note._id, sidOf(loggedOut.token), sidOf(ender)]

      live = await register(h.client)
      liveOther = await login(live)
    })
    after(async () => h.close())

    const senderFor = () => {
      const base = mode === 'http' ? `http://127.0.0.1:${(h.app.server.address() as { port: number }).port}` : ''
      return mode === 'http' ? socketSender(base) : undefined
    }

    it('each revoked token gets the bare 401 on every route', async () => {
      for (const [label, token] of revoked) {
        for (const [method, template] of AUTHENTICATED_ROUTES) {
          const path = template.replace(':id', ids[0]!)
          const res = await h.client.request(method, path, { token })
          assert.deepEqual([res.status, res.text], [401, 'Unauthorized'], `${label}: ${method} ${path}`)
        }
      }
    })

    it(`answers ${RUNS[mode]} generated requests with revoked tokens with the bare 401`, async () => {
      const socket = senderFor()
      try {
        const requests = tokenRequests(
          AUTHENTICATED_ROUTES,
          revoked.map(([, token]) => token),
          ids,
        )
        const result = await fuzzWith(requests, socket ?? injectSender(h.app), notBare401, RUNS[mode])
        assert.equal(result.report, undefined)
        assert.deepEqual(Object.keys(result.statuses), ['401'])
      } finally {
        socket?.close()
      }
    })

    it(`answers ${RUNS[mode]} generated account-management requests with a live token in the contract's style, never 5xx`, async () => {
      const socket = senderFor()
      let wrongPasswords = 0
      try {
        const requests = tokenRequests(NON_ENDING_ROUTES, [live.token], [...ids, sidOf(liveOther)])
        const counting: typeof accountProblems = (req, status, contentType, text) => {
          if (status === 400 && text.includes('"Invalid Credentials"')) wrongPasswords += 1
          return accountProblems(req, status, contentType, text)
        }
        const result = await fuzzWith(requests, socket ?? injectSender(h.app), counting, RUNS[mode])
        assert.equal(result.report, undefined)
        // The generator reaches past validation: some requests succeed, some are refused.
        assert.ok((result.statuses[200] ?? 0) > 0 && (result.statuses[400] ?? 0) > 0, JSON.stringify(result.statuses))
      } finally {
        socket?.close()
      }
      // None of those requests ends the session, unless the generator happened to send as many
      // well-formed wrong passwords as a session may (docs/accounts.md): then exactly that ended it.
      const limit = testConfig().bruteForce.sessionLimit
      const expected = wrongPasswords < limit ? 200 : 401
      const status = (await h.client.request('GET', '/get-user', { token: live.token })).status
      assert.equal(status, expected, `${wrongPasswords} wrong passwords answered, the limit is ${limit}`)
    })
  })
}
