// The account-management endpoints of docs/accounts.md on both stores, through inject
// and over a real socket: sessions opened by /login and /create-account and named by their
// tokens, every endpoint's answers and validation, revocation at the next request (the
// verified-token cache notwithstanding), the coarse lastUsedOn, tokens without a session, and
// what a deleted account leaves in the database (nothing). The harness checks every answer
// against /openapi.json.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createSigner } from 'fast-jwt'
import { TOKEN_LIFETIME_MS, type TokenUser, createTokenService } from '../src/services/tokens.js'
import { ACCOUNT_MANAGEMENT_TAG } from '../src/schemas/account-management.js'
import { MAX_SESSIONS_PER_ACCOUNT, SESSION_TOUCH_INTERVAL_MS } from '../src/services/sessions.js'
import { ACCOUNT_OPERATIONS } from './support/account-operations.js'
import { CONTRACT_OPERATIONS } from './support/contract-operations.js'
import { eventually } from './support/eventually.js'
import {
  type Account,
  type Harness,
  TEST_SECRET,
  addNote,
  register,
  startHarness,
  targets,
  uniqueEmail,
} from './support/harness.js'
import { type StoreWithSql, openStoreWithSql } from './support/sql-stores.js'
import { SERVICE_LIMITS } from './support/stores.js'

interface ListedSession {
  _id: string
  createdOn: string
  lastUsedOn: string
  client: string
  current: boolean
}

const PASSWORD = 'correct horse battery staple'
const sidOf = (token: string) =>
  (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sid?: string }).sid

for (const { mode, storeKind } of targets()) {
  describe(`account management (${mode}, ${storeKind})`, () => {
    let db: StoreWithSql
    let h: Harness
    before(async () => {
      db = await openStoreWithSql(storeKind, SERVICE_LIMITS)
      h = await startHarness(mode, { store: db.store })
    })
    after(async () => {
      await h.close()
      await db.close()
    })

    const request = (method: string, path: string, token?: string, body?: unknown, headers?: Record<string, string>) =>
      h.client.request(method, path, {
        ...(token === undefined ? {} : { token }),
        ...(body === undefined ? {} : { body }),
        ...(headers ? { headers } : {}),
      })
    const statusOf = async (token: string, path = '/get-user') => (await request('GET', path, token)).status
    const login = async (a: Account, userAgent = 'test client') => {
      const res = await request(
        'POST',
        '/login',
        undefined,
        { email: a.email, password: a.password },
        { 'user-agent': userAgent },
      )
      assert.equal(res.status, 200, res.text)
      return (res.json as { accessToken: string }).accessToken
    }
    const sessionsOf = async (token: string) => {
      const res = await request('GET', '/get-sessions', token)
      assert.equal(res.status, 200, res.text)
      return (res.json as { sessions: ListedSession[] }).sessions
    }
    /** Every route a token opens answers 401, plain text. */
    const assertEnded = async (token: string, label: string) => {
      for (const [method, path, body] of [
        ['GET', '/get-user'],
        ['GET', '/get-all-notes'],
        ['POST', '/add-note', { title: 't', content: 'c' }],
        ['GET', '/get-sessions'],
        ['POST', '/logout'],
      ] as const) {
        const res = await request(method, path, token, body)
        assert.equal(res.status, 401, `${label}: ${method} ${path} answered ${res.status} ${res.text}`)
        assert.equal(res.text, 'Unauthorized', `${label}: ${method} ${path}`)
      }
    }

    it('opens a session per /create-account and /login, named by the token; GET /get-sessions lists them', async () => {
      const email = uniqueEmail('sessions')
      const made = await request(
        'POST',
        '/create-account',
        undefined,
        { fullName: 'Sessions', email, password: PASSWORD },
        { 'user-agent': 'Agent A/1.0' },
      )
      const first = (made.json as { accessToken: string }).accessToken
      const a: Account = {
        email,
        password: PASSWORD,
        token: first,
        userId: (made.json as { user: { _id: string } }).user._id,
      }
      const second = await login(a, '  Agent B\t(tabbed)  ')
      const third = await login(a, `Long ${'x'.repeat(300)}`)
      const fourth = await login(a, '')
      const tokens = [first, second, third, fourth]
      assert.equal(new Set(tokens.map(sidOf)).size, 4)
      for (const token of tokens) assert.equal(await statusOf(token), 200)

      const res = await request('GET', '/get-sessions', second)
      assert.deepEqual(Object.keys(res.json as object), ['error', 'sessions', 'message'])
      assert.equal((res.json as { message: string }).message, 'Sessions retrieved successfully')
      const sessions = (res.json as { sessions: ListedSession[] }).sessions
      assert.deepEqual(
        sessions.map((s) => Object.keys(s)),
        sessions.map(() => ['_id', 'createdOn', 'lastUsedOn', 'client', 'current']),
      )
      // Newest lastUsedOn first; unused since made, so newest made first.
      assert.deepEqual(
        sessions.map((s) => s._id),
        tokens.map(sidOf).reverse(),
      )
      assert.deepEqual(
        sessions.map((s) => s.current),
        [false, false, true, false],
      )
      assert.deepEqual(
        sessions.map((s) => s.client),
        ['', `Long ${'x'.repeat(195)}`, 'Agent B (tabbed)', 'Agent A/1.0'],
      )
      for (const s of sessions) {
        assert.match(s._id, /^[0-9a-f]{32}$/)
        assert.equal(s.lastUsedOn, s.createdOn)
      }
      const rows = await db.sql<{ n: number | string }>('SELECT count(*) AS n FROM sessions WHERE user_id = ?', [
        a.userId,
      ])
      assert.equal(Number(rows[0]?.n), 4)
    })

    it('POST /logout ends that token at the next request, the verified-token cache notwithstanding; other sessions go on', async () => {
      const a = await register(h.client)
      const other = await login(a)
      // Verified once already: its signature check is now answered from the cache.
      assert.equal(await statusOf(a.token), 200)
      const res = await request('POST', '/logout', a.token)
      assert.equal(res.status, 200)
      assert.equal(res.text, '{"error":false,"message":"Logged out successfully"}')
      await assertEnded(a.token, 'logged out')
      assert.equal(await statusOf(other), 200)
      assert.deepEqual(
        (await sessionsOf(other)).map((s) => s._id),
        [sidOf(other)],
      )
    })

    it("DELETE /delete-session/:sessionId ends one of the caller's sessions; another user's or an unknown id is 404", async () => {
      const a = await register(h.client)
      const other = await login(a)
      const b = await register(h.client)
      const notFound = '{"error":true,"message":"Session not found"}'
      for (const id of [
        sidOf(b.token)!,
        '0123456789abcdef01234567',
        'not-an-id',
        sidOf(other)!.toUpperCase(),
        '%FF',
        'a'.repeat(101),
      ]) {
        const res = await request('DELETE', `/delete-session/${id}`, a.token)
        assert.equal(res.status, 404, id)
        assert.equal(res.text, notFound, id)
      }
      assert.equal(await statusOf(b.token), 200, "another user's session is untouched")
      const ended = await request('DELETE', `/delete-session/${sidOf(other)}`, a.token)
      assert.equal(ended.status, 200)
      assert.equal(ended.text, '{"error":false,"message":"Session ended successfully"}')
      await assertEnded(other, 'ended by the other session')
      assert.equal((await request('DELETE', `/delete-session/${sidOf(other)}`, a.token)).status, 404, 'already ended')
      // Its own session too: the same as a logout.
      assert.equal((await request('DELETE', `/delete-session/${sidOf(a.token)}`, a.token)).status, 200)
      await assertEnded(a.token, 'ended itself')
    })

    it('POST /logout-everywhere ends every session of the account, this one included', async () => {
      const a = await register(h.client)
      const others = [await login(a), await login(a)]
      const b = await register(h.client)
      const res = await request('POST', '/logout-everywhere', a.token)
      assert.equal(res.status, 200)
      assert.equal(res.text, '{"error":false,"message":"Logged out everywhere"}')
      for (const token of [a.token, ...others]) await assertEnded(token, 'logged out everywhere')
      assert.equal(await statusOf(b.token), 200, 'other accounts go on')
      assert.deepEqual(await db.sql('SELECT id FROM sessions WHERE user_id = ?', [a.userId]), [])
      const fresh = await login(a)
      assert.deepEqual(
        (await sessionsOf(fresh)).map((s) => s.current),
        [true],
      )
    })

    it('PUT /change-password checks the current password, stores the new hash and ends every other session', async () => {
      const a = await register(h.client)
      const other = await login(a)
      const put = (body: unknown) => request('PUT', '/change-password', a.token, body)
      const refusals: Array<[unknown, string]> = [
        [{}, 'Current password is required'],
        [{ newPassword: 'n' }, 'Current password is required'],
        [{ currentPassword: '', newPassword: 'n' }, 'Current password is required'],
        [{ currentPassword: a.password }, 'New password is required'],
        [{ currentPassword: a.password, newPassword: null }, 'New password is required'],
        [{ currentPassword: 42, newPassword: 'n' }, 'currentPassword must be a string'],
        [{ currentPassword: a.password, newPassword: ['n'] }, 'newPassword must be a string'],
        [{ currentPassword: a.password, newPassword: 'n'.repeat(1025) }, 'newPassword must be at most 1024 characters'],
        [
          { currentPassword: a.password, newPassword: 'bad\ud800' },
          'newPassword must be valid Unicode text: it contains an unpaired surrogate',
        ],
        [{ currentPassword: a.password, newPassword: 'seven 7' }, 'New password must be at least 8 characters'],
        // Code points: seven emoji are seven characters, although fourteen UTF-16 units.
        [{ currentPassword: a.password, newPassword: '🔑'.repeat(7) }, 'New password must be at least 8 characters'],
        [
          { currentPassword: a.password, newPassword: a.password },
          'New password must be different from the current password',
        ],
        [{ currentPassword: 'wrong', newPassword: 'long enough' }, 'Invalid Credentials'],
      ]
      for (const [body, message] of refusals) {
        const res = await put(body)
        assert.equal(res.status, 400, JSON.stringify(body))
        assert.deepEqual(res.json, { error: true, message }, JSON.stringify(body))
      }
      assert.equal(await statusOf(other), 200, 'refusals change nothing')
      const before = (
        await db.sql<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = ?', [a.userId])
      )[0]?.password_hash
      const res = await put({ currentPassword: a.password, newPassword: 'a new password' })
      assert.equal(res.status, 200)
      assert.equal(res.text, '{"error":false,"message":"Password changed successfully"}')
      const after = (
        await db.sql<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = ?', [a.userId])
      )[0]?.password_hash
      assert.notEqual(after, before)
      assert.match(after ?? '', /^\$argon2id\$/)
      assert.equal(await statusOf(a.token), 200, 'the caller goes on')
      await assertEnded(other, 'the other session')
      const old = await request('POST', '/login', undefined, { email: a.email, password: a.password })
      assert.deepEqual([old.status, old.json], [400, { error: true, message: 'Invalid Credentials' }])
      assert.equal(
        (await request('POST', '/login', undefined, { email: a.email, password: 'a new password' })).status,
        200,
      )
    })

    it("PUT /edit-user renames; the name is validated like create-account's", async () => {
      const a = await register(h.client, 'Old Name')
      const refusals: Array<[unknown, string]> = [
        [{}, 'Full Name is required'],
        [{ fullName: '' }, 'Full Name is required'],
        [{ fullName: null }, 'Full Name is required'],
        [{ fullName: 7 }, 'fullName must be a string'],
        [{ fullName: 'x'.repeat(201) }, 'fullName must be at most 200 characters'],
        [{ fullName: '\udc00name' }, 'fullName must be valid Unicode text: it contains an unpaired surrogate'],
        [{ fullName: 'Ops\u001b[2J' }, 'fullName must not contain control characters'],
      ]
      for (const [body, message] of refusals) {
        const res = await request('PUT', '/edit-user', a.token, body)
        assert.deepEqual([res.status, res.json], [400, { error: true, message }], JSON.stringify(body))
      }
      const malformed = await h.client.request('PUT', '/edit-user', {
        token: a.token,
        raw: '{"fullName":',
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(malformed.status, 400)
      const name = `Ada ${'λ'.repeat(10)} שלום 🎉`
      const res = await request('PUT', '/edit-user', a.token, { fullName: name, email: 'ignored@example.com' })
      assert.equal(res.status, 200)
      const body = res.json as { error: boolean; user: TokenUser; message: string }
      assert.deepEqual(Object.keys(body), ['error', 'user', 'message'])
      assert.deepEqual(body.user, { _id: a.userId, fullName: name, email: a.email, createdOn: body.user.createdOn })
      assert.equal(body.message, 'User updated successfully')
      assert.deepEqual(((await request('GET', '/get-user', a.token)).json as { user: TokenUser }).user, body.user)
      assert.equal((await request('PUT', '/edit-user', a.token, { fullName: 'x'.repeat(200) })).status, 200)
    })

    it('DELETE /delete-account checks the password, then leaves no account, note or session behind', async () => {
      const a = await register(h.client)
      const other = await login(a)
      await addNote(h.client, a.token, { title: 'mine', content: 'soon gone', tags: ['x'] })
      await addNote(h.client, a.token, { title: 'also mine', content: 'soon gone' })
      const b = await register(h.client)
      const kept = await addNote(h.client, b.token, { title: "b's", content: 'stays' })
      for (const [body, message] of [
        [{}, 'Password is required'],
        [{ password: '' }, 'Password is required'],
        [{ password: 'wrong' }, 'Invalid Credentials'],
      ] as const) {
        const res = await request('DELETE', '/delete-account', a.token, body)
        assert.deepEqual([res.status, res.json], [400, { error: true, message }], JSON.stringify(body))
      }
      const res = await request('DELETE', '/delete-account', a.token, { password: a.password })
      assert.equal(res.status, 200)
      assert.equal(res.text, '{"error":false,"message":"Account deleted successfully"}')
      for (const token of [a.token, other]) await assertEnded(token, 'deleted account')
      const tables = ['notes', 'sessions', 'account_usage', ...(storeKind === 'postgresql' ? ['note_versions'] : [])]
      for (const table of tables)
        assert.deepEqual(await db.sql(`SELECT * FROM ${table} WHERE user_id = ?`, [a.userId]), [], table)
      assert.deepEqual(await db.sql('SELECT * FROM users WHERE id = ?', [a.userId]), [])
      const relogin = await request('POST', '/login', undefined, { email: a.email, password: a.password })
      assert.deepEqual([relogin.status, relogin.json], [400, { error: true, message: 'Invalid Credentials' }])
      // Another account is untouched, and the email is free again.
      assert.deepEqual(
        ((await request('GET', '/get-all-notes', b.token)).json as { notes: Array<{ _id: string }> }).notes.map(
          (n) => n._id,
        ),
        [kept._id],
      )
      const again = await request('POST', '/create-account', undefined, {
        fullName: 'Again',
        email: a.email,
        password: 'pw',
      })
      assert.equal((again.json as { error: boolean }).error, false)
    })

    it(`writes lastUsedOn when it is ${SESSION_TOUCH_INTERVAL_MS / 60_000} minutes old, never on every request`, async () => {
      const a = await register(h.client)
      for (let i = 0; i < 5; i++) assert.equal(await statusOf(a.token), 200)
      const [fresh] = await sessionsOf(a.token)
      assert.equal(fresh?.lastUsedOn, fresh?.createdOn, 'a session used within the interval is not written')
      // As if last used 10 minutes ago (an operator's SQL, like any other outside write).
      const longAgo = new Date(Date.now() - 2 * SESSION_TOUCH_INTERVAL_MS).toISOString()
      await db.sql('UPDATE sessions SET last_used_on = ? WHERE id = ?', [longAgo, sidOf(a.token)])
      const started = new Date().toISOString()
      let touched = ''
      // Requests go on until one sees the old value: on PostgreSQL a process sees an outside write
      // to a kept session when its notice arrives (docs/caching.md), milliseconds later.
      await eventually('lastUsedOn written', async () => {
        assert.equal(await statusOf(a.token), 200)
        touched =
          (
            await db.sql<{ last_used_on: string }>('SELECT last_used_on FROM sessions WHERE id = ?', [sidOf(a.token)])
          )[0]?.last_used_on ?? ''
        return touched >= started
      })
      for (let i = 0; i < 5; i++) assert.equal(await statusOf(a.token, '/get-all-notes'), 200)
      const [listed] = await sessionsOf(a.token)
      assert.equal(listed?.lastUsedOn, touched, 'written once, not again within the interval')
    })

    it(
      `keeps ${MAX_SESSIONS_PER_ACCOUNT} sessions per account: a login past them ends the least recently used`,
      { skip: mode === 'http' && 'the same store code as inject' },
      async () => {
        const a = await register(h.client)
        const first = await login(a)
        // The account's first session was used lately; the second (made after it) is now the least recently used.
        await db.sql('UPDATE sessions SET last_used_on = ? WHERE id = ?', [
          new Date(Date.now() + 60_000).toISOString(),
          sidOf(a.token),
        ])
        for (let i = 2; i < MAX_SESSIONS_PER_ACCOUNT; i++) await login(a)
        assert.equal((await sessionsOf(a.token)).length, MAX_SESSIONS_PER_ACCOUNT)
        assert.equal(await statusOf(first), 200)
        const next = await login(a)
        assert.equal((await sessionsOf(next)).length, MAX_SESSIONS_PER_ACCOUNT)
        assert.equal(await statusOf(first), 401, 'the least recently used ended')
        assert.equal(await statusOf(a.token), 200)
      },
    )

    it('lists only sessions whose tokens have not expired', async () => {
      const a = await register(h.client)
      const old = await login(a)
      const expired = new Date(Date.now() - TOKEN_LIFETIME_MS - 60_000).toISOString()
      await db.sql('UPDATE sessions SET created_on = ?, last_used_on = ? WHERE id = ?', [expired, expired, sidOf(old)])
      assert.deepEqual(
        (await sessionsOf(a.token)).map((s) => s._id),
        [sidOf(a.token)],
      )
    })

    describe('tokens issued before sessions existed (no sid)', () => {
      const issuer = createTokenService(TEST_SECRET)
      /** A token without a session, `secondsAhead` after now (within the 60 s clock skew). */
      const sessionless = (user: TokenUser, secondsAhead = 0) =>
        secondsAhead === 0
          ? issuer.issue(user)
          : createSigner({
              key: TEST_SECRET,
              algorithm: 'HS256',
              expiresIn: 3_600_000,
              clockTimestamp: Date.now() + secondsAhead * 1000,
            })({ user })
      const userOf = async (a: Account) =>
        ((await request('GET', '/get-user', a.token)).json as { user: TokenUser }).user

      it('are accepted until the account\'s "not before" time passes their iat; POST /logout with one moves it', async () => {
        const a = await register(h.client)
        const user = await userOf(a)
        const old = sessionless(user)
        const older = sessionless(user)
        assert.equal(sidOf(old), undefined)
        for (const path of ['/get-user', '/get-all-notes']) assert.equal(await statusOf(old, path), 200)
        assert.deepEqual(
          (await sessionsOf(old)).map((s) => s.current),
          [false],
          'it is none of the sessions',
        )
        assert.equal((await request('POST', '/logout', old)).status, 200)
        // Every such token of the account ends; its sessions go on.
        await assertEnded(old, 'sessionless, logged out')
        await assertEnded(older, 'sessionless, another')
        assert.equal(await statusOf(a.token), 200)
        // One issued after the "not before" time (as an instance of the previous release would) is accepted.
        const later = sessionless(user, 2)
        assert.equal(await statusOf(later), 200)
      })

      it('end with POST /logout-everywhere and PUT /change-password; a change made with one ends it too', async () => {
        const a = await register(h.client)
        const user = await userOf(a)
        const old = sessionless(user)
        assert.equal(await statusOf(old), 200)
        assert.equal(
          (
            await request('PUT', '/change-password', a.token, {
              currentPassword: a.password,
              newPassword: 'second password',
            })
          ).status,
          200,
        )
        await assertEnded(old, 'after change-password')
        assert.equal(await statusOf(a.token), 200)

        const b = await register(h.client)
        const bOld = sessionless(await userOf(b))
        assert.equal((await request('POST', '/logout-everywhere', b.token)).status, 200)
        await assertEnded(bOld, 'after logout-everywhere')

        // Changing the password with a token that names no session: that token ends as well.
        const c = await register(h.client)
        const cOld = sessionless(await userOf(c))
        const cOther = await login(c)
        const res = await request('PUT', '/change-password', cOld, {
          currentPassword: c.password,
          newPassword: 'third password',
        })
        assert.equal(res.status, 200)
        for (const [token, label] of [
          [cOld, 'the caller'],
          [c.token, 'a session'],
          [cOther, 'another session'],
        ] as const)
          await assertEnded(token, label)
      })
    })
  })
}

describe('the account-management endpoints in /openapi.json', () => {
  let h: Harness
  before(async () => {
    h = await startHarness('inject')
  })
  after(async () => h.close())

  it('documents each, under a tag of its own apart from the contract operations, with the bearer scheme and the bare 401', async () => {
    type Operation = {
      tags?: string[]
      security?: unknown[]
      responses: Record<string, { content?: Record<string, unknown> }>
    }
    const doc = (await h.client.request('GET', '/openapi.json')).json as {
      tags: Array<{ name: string }>
      paths: Record<string, Record<string, Operation>>
    }
    assert.ok(doc.tags.some((t) => t.name === ACCOUNT_MANAGEMENT_TAG))
    for (const [method, path] of ACCOUNT_OPERATIONS) {
      const op = doc.paths[path]?.[method]
      assert.ok(op, `${method} ${path} is documented`)
      assert.deepEqual(op.tags, [ACCOUNT_MANAGEMENT_TAG], `${method} ${path}`)
      assert.deepEqual(op.security, [{ bearerAuth: [] }])
      assert.deepEqual(Object.keys(op.responses['401']?.content ?? {}), ['text/plain'])
      for (const status of ['200', '500', '503'])
        assert.ok(op.responses[status], `${method} ${path} documents ${status}`)
    }
    for (const [method, path] of CONTRACT_OPERATIONS)
      assert.ok(!doc.paths[path]?.[method]?.tags?.includes(ACCOUNT_MANAGEMENT_TAG), `${method} ${path}`)
    // Their wrong passwords are counted per session, which ends (401) rather than being throttled.
    for (const [method, path] of [
      ['put', '/change-password'],
      ['delete', '/delete-account'],
    ] as const) {
      assert.equal(doc.paths[path]?.[method]?.responses['429'], undefined, `${method} ${path} answers no 429`)
    }
  })
})
