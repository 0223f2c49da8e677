// POST /create-account, POST /login, GET /get-user: every rule of docs/contract.md for them,
// against inject and against a real listening server.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createSigner } from 'fast-jwt'
import { defaultConfig } from '../src/config.js'
import { type Harness, targets, TEST_SECRET, register, startHarness, uniqueEmail } from './support/harness.js'

for (const { mode, storeKind } of targets()) {
  describe(`accounts (${mode}, ${storeKind})`, () => {
    let h: Harness
    before(async () => {
      h = await startHarness(mode, { storeKind })
    })
    after(async () => h.close())
    const post = (path: string, body: unknown) => h.client.request('POST', path, { body })

    describe('POST /create-account', () => {
      it('creates a user and returns the user record and a token (spec rule 3)', async () => {
        const email = uniqueEmail()
        const res = await post('/create-account', { fullName: 'Ada Lovelace', email, password: 'pw' })
        assert.equal(res.status, 200)
        const body = res.json as Record<string, unknown>
        assert.deepEqual(Object.keys(body).sort(), ['accessToken', 'error', 'message', 'user'])
        assert.equal(body.error, false)
        assert.equal(body.message, 'Registration Successful')
        const user = body.user as Record<string, unknown>
        assert.deepEqual(Object.keys(user).sort(), ['_id', 'createdOn', 'email', 'fullName'])
        assert.match(user._id as string, /^[0-9a-f]{24}$/)
        assert.equal(user.fullName, 'Ada Lovelace')
        assert.equal(user.email, email)
        assert.ok(!Number.isNaN(Date.parse(user.createdOn as string)))
        assert.equal(typeof body.accessToken, 'string')
      })

      it('answers 400 "Full Name is required" when fullName is missing or empty (rule 1)', async () => {
        for (const fullName of [undefined, '', null, 0, false]) {
          const res = await post('/create-account', { fullName, email: uniqueEmail(), password: 'pw' })
          assert.equal(res.status, 400)
          assert.deepEqual(res.json, { error: true, message: 'Full Name is required' })
        }
      })

      it('answers "Email is required" and "Password is required" in the specified order', async () => {
        assert.deepEqual((await post('/create-account', { fullName: 'A', password: 'pw' })).json, {
          error: true,
          message: 'Email is required',
        })
        assert.deepEqual((await post('/create-account', { fullName: 'A', email: uniqueEmail() })).json, {
          error: true,
          message: 'Password is required',
        })
        const none = await post('/create-account', {})
        assert.equal(none.status, 400)
        assert.deepEqual(none.json, { error: true, message: 'Full Name is required' })
        const noEmailNoPassword = await post('/create-account', { fullName: 'A' })
        assert.deepEqual(noEmailNoPassword.json, { error: true, message: 'Email is required' })
        const blank = await post('/create-account', { fullName: 'A', email: '   ', password: 'pw' })
        assert.deepEqual(blank.json, { error: true, message: 'Email is required' })
      })

      it('answers 200 "User already exists" for a taken email, case- and space-insensitively (rule 2)', async () => {
        const email = uniqueEmail('Dup')
        assert.equal((await post('/create-account', { fullName: 'A', email, password: 'pw' })).status, 200)
        for (const again of [email, email.toUpperCase(), `  ${email} `]) {
          const res = await post('/create-account', { fullName: 'B', email: again, password: 'other' })
          assert.equal(res.status, 200)
          assert.deepEqual(res.json, { error: true, message: 'User already exists' })
        }
        // no second user was made: the first password still logs in
        const login = await post('/login', { email, password: 'pw' })
        assert.equal(login.status, 200)
      })

      it('stores the email trimmed, as submitted', async () => {
        const email = uniqueEmail('MixedCase')
        const res = await post('/create-account', { fullName: 'A', email: `  ${email}  `, password: 'pw' })
        assert.equal((res.json as { user: { email: string } }).user.email, email)
      })

      it('answers 400 naming the field for wrong JSON types', async () => {
        const cases: Array<[Record<string, unknown>, RegExp]> = [
          [{ fullName: { a: 1 }, email: uniqueEmail(), password: 'pw' }, /fullName must be a string/],
          [{ fullName: 'A', email: ['x'], password: 'pw' }, /email must be a string/],
          [{ fullName: 'A', email: uniqueEmail(), password: 42 }, /password must be a string/],
          [{ fullName: true, email: uniqueEmail(), password: 'pw' }, /fullName must be a string/],
        ]
        for (const [body, message] of cases) {
          const res = await post('/create-account', body)
          assert.equal(res.status, 400, JSON.stringify(body))
          assert.equal((res.json as { error: boolean }).error, true)
          assert.match((res.json as { message: string }).message, message)
        }
      })

      it('answers 400 for over-long fields', async () => {
        const cases: Array<[Record<string, unknown>, RegExp]> = [
          [{ fullName: 'x'.repeat(201), email: uniqueEmail(), password: 'pw' }, /fullName must be at most 200/],
          [{ fullName: 'A', email: 'x'.repeat(245) + '@example.com', password: 'pw' }, /email must be at most 254/],
          [{ fullName: 'A', email: uniqueEmail(), password: 'x'.repeat(1025) }, /password must be at most 1024/],
        ]
        for (const [body, message] of cases) {
          const res = await post('/create-account', body)
          assert.equal(res.status, 400)
          assert.match((res.json as { message: string }).message, message)
        }
        const atLimit = await post('/create-account', {
          fullName: 'x'.repeat(200),
          email: uniqueEmail(),
          password: 'p'.repeat(1024),
        })
        assert.equal(atLimit.status, 200)
      })

      it("stores an argon2id hash with m=19MiB, t=2, p=1 (the deployment's cost), never the password", async () => {
        const own = await startHarness(mode, { storeKind, config: { passwordHashing: defaultConfig.passwordHashing } })
        try {
          const email = uniqueEmail()
          await own.client.request('POST', '/create-account', {
            body: { fullName: 'A', email, password: 'plain-text-password' },
          })
          const stored = await own.store.findUserByEmailKey(email.toLowerCase())
          assert.ok(stored)
          const params = /^\$argon2id\$v=19\$([^$]+)\$/.exec(stored.passwordHash)?.[1]?.split(',').sort()
          assert.deepEqual(params, ['m=19456', 'p=1', 't=2'])
          assert.ok(!stored.passwordHash.includes('plain-text-password'))
        } finally {
          await own.close()
        }
      })

      it('issues an HS256 token whose payload is {user: {_id, fullName, email, createdOn}, sid, iat, exp}, 36000 minutes long', async () => {
        const email = uniqueEmail()
        const res = await post('/create-account', { fullName: 'Tok', email, password: 'token-password' })
        const { accessToken, user } = res.json as { accessToken: string; user: Record<string, unknown> }
        const [header, payload] = accessToken
          .split('.')
          .slice(0, 2)
          .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>)
        assert.equal(header?.alg, 'HS256')
        // sid names the token's session (docs/accounts.md).
        assert.deepEqual(Object.keys(payload!).sort(), ['exp', 'iat', 'sid', 'user'])
        assert.match(payload!.sid as string, /^[0-9a-f]{32}$/)
        assert.deepEqual(payload!.user, user)
        assert.equal((payload!.exp as number) - (payload!.iat as number), 36_000 * 60)
        assert.ok(!accessToken.includes(Buffer.from('token-password').toString('base64url').slice(0, 8)))
        const login = await post('/login', { email, password: 'token-password' })
        const loginPayload = JSON.parse(
          Buffer.from((login.json as { accessToken: string }).accessToken.split('.')[1]!, 'base64url').toString(),
        ) as Record<string, unknown>
        assert.deepEqual(loginPayload.user, user)
        assert.match(loginPayload.sid as string, /^[0-9a-f]{32}$/)
        assert.notEqual(loginPayload.sid, payload!.sid, 'each login opens a session of its own')
      })

      it('never returns a password or a hash', async () => {
        const res = await post('/create-account', { fullName: 'A', email: uniqueEmail(), password: 'hunter2-secret' })
        assert.doesNotMatch(res.text, /hunter2-secret|argon2|password/i)
      })
    })

    describe('POST /login', () => {
      it('logs in with the right password: exactly {error, message, email, accessToken} (rule 1)', async () => {
        const account = await register(h.client)
        const res = await post('/login', { email: account.email, password: account.password })
        assert.equal(res.status, 200)
        const body = res.json as Record<string, unknown>
        assert.deepEqual(Object.keys(body).sort(), ['accessToken', 'email', 'error', 'message'])
        assert.equal(body.error, false)
        assert.equal(body.message, 'Login Successful')
        assert.equal(body.email, account.email)
        const me = await h.client.request('GET', '/get-user', { token: body.accessToken as string })
        assert.equal(me.status, 200)
      })

      it('matches the email trimmed and case-insensitively', async () => {
        const account = await register(h.client)
        const res = await post('/login', { email: `  ${account.email.toUpperCase()} `, password: account.password })
        assert.equal(res.status, 200)
      })

      it('answers 400 "Invalid Credentials" for a wrong password (rule 2)', async () => {
        const account = await register(h.client)
        const res = await post('/login', { email: account.email, password: 'wrong' })
        assert.equal(res.status, 400)
        assert.deepEqual(res.json, { error: true, message: 'Invalid Credentials' })
      })

      it('answers an unknown email exactly like a wrong password (no enumeration)', async () => {
        const res = await post('/login', { email: uniqueEmail('nobody'), password: 'whatever' })
        assert.equal(res.status, 400)
        assert.deepEqual(res.json, { error: true, message: 'Invalid Credentials' })
      })

      it('answers "Email is required" / "Password is required" for missing or falsy fields', async () => {
        assert.deepEqual((await post('/login', { password: 'pw' })).json, { error: true, message: 'Email is required' })
        assert.deepEqual((await post('/login', { email: '', password: 'pw' })).json, {
          error: true,
          message: 'Email is required',
        })
        assert.deepEqual((await post('/login', { email: 'a@b.c' })).json, {
          error: true,
          message: 'Password is required',
        })
        assert.deepEqual((await post('/login', { email: 'a@b.c', password: null })).json, {
          error: true,
          message: 'Password is required',
        })
        assert.equal((await post('/login', {})).status, 400)
      })

      it('answers 400 naming the field for a wrong type', async () => {
        const res = await post('/login', { email: 'a@b.c', password: { $ne: null } })
        assert.equal(res.status, 400)
        assert.deepEqual(res.json, { error: true, message: 'password must be a string' })
      })
    })

    describe('GET /get-user', () => {
      it('returns {user: {fullName, email, _id, createdOn}, message: ""} without the password', async () => {
        const account = await register(h.client, 'Grace Hopper')
        const res = await h.client.request('GET', '/get-user', { token: account.token })
        assert.equal(res.status, 200)
        const body = res.json as { user: Record<string, unknown>; message: string }
        assert.equal(body.message, '')
        assert.deepEqual(Object.keys(body).sort(), ['message', 'user'])
        assert.deepEqual(Object.keys(body.user).sort(), ['_id', 'createdOn', 'email', 'fullName'])
        assert.equal(body.user._id, account.userId)
        assert.equal(body.user.fullName, 'Grace Hopper')
        assert.equal(body.user.email, account.email)
        assert.ok(body.user.createdOn, 'createdOn is returned')
      })

      it('answers 401 when the token user no longer exists', async () => {
        const sign = createSigner({ key: TEST_SECRET, algorithm: 'HS256', expiresIn: 60_000 })
        const ghost = sign({
          user: { _id: 'aaaaaaaaaaaaaaaaaaaaaaaa', fullName: 'Ghost', email: 'g@x', createdOn: '' },
        })
        const res = await h.client.request('GET', '/get-user', { token: ghost })
        assert.equal(res.status, 401)
        assert.equal(res.text, 'Unauthorized')
      })
    })
  })
}
