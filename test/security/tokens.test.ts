// Tokens that must not get in: every forged, foreign, expired, premature or
// orphaned token, and every odd Authorization header, gets 401 `Unauthorized` as plain text on
// every protected endpoint, never a 500.
import assert from 'node:assert/strict'
import { createHmac, generateKeyPairSync } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import { createSigner } from 'fast-jwt'
import { SQLITE_FILE, openSqliteStore } from '../../src/store/sqlite/index.js'
import { type Account, type Harness, MODES, TEST_SECRET, addNote, register, startHarness } from '../support/harness.js'
import { SERVICE_LIMITS } from '../support/stores.js'
import { tempDir } from '../support/temp.js'

const NOTE_ID = '0123456789abcdef01234567'
const PROTECTED: Array<[string, string, unknown?]> = [
  ['GET', '/get-user'],
  ['POST', '/add-note', { title: 't', content: 'c' }],
  ['PUT', `/edit-note/${NOTE_ID}`, { title: 't' }],
  ['DELETE', `/delete-note/${NOTE_ID}`],
  ['PUT', `/update-note-pinned/${NOTE_ID}`, { isPinned: true }],
  ['GET', '/get-all-notes'],
  ['GET', '/search-notes?query=a'],
]

const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')
const HOUR = 3_600_000
const DAY = 24 * HOUR
const seconds = (ms: number) => Math.floor(ms / 1000)

/** An HS256 token over exactly this payload, signed with the service's real secret. */
function signedWithRealSecret(payload: object): string {
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(payload)}`
  return `${unsigned}.${createHmac('sha256', TEST_SECRET).update(unsigned).digest('base64url')}`
}

/** Every token an attacker could try, built around a real account's valid token. */
function forgedTokens(a: Account): Array<[string, string]> {
  const user = { _id: a.userId, fullName: 'Test User', email: a.email, createdOn: new Date().toISOString() }
  const [head, body, sig] = a.token.split('.') as [string, string, string]
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const rs256 = createSigner({
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    algorithm: 'RS256',
    expiresIn: HOUR,
  })
  const hs = (algorithm: 'HS256' | 'HS384' | 'HS512', extra: object = {}) =>
    createSigner({ key: TEST_SECRET, algorithm, ...extra })({ user })
  const noneHeaders = ['none', 'None', 'NONE', 'nOnE'].map((alg) => `${b64({ alg, typ: 'JWT' })}.${body}.`)
  return [
    ...noneHeaders.map((t, i): [string, string] => [`alg none #${i}`, t]),
    ['alg none with the real signature', `${b64({ alg: 'none', typ: 'JWT' })}.${body}.${sig}`],
    ['HS384', hs('HS384', { expiresIn: HOUR })],
    ['HS512', hs('HS512', { expiresIn: HOUR })],
    ['RS256 signed with a private key', rs256({ user })],
    ['RS256 header over an HS256 signature', `${b64({ alg: 'RS256', typ: 'JWT' })}.${body}.${sig}`],
    [
      'wrong secret',
      createSigner({ key: 'another-secret-that-is-at-least-32-bytes!', algorithm: 'HS256', expiresIn: HOUR })({ user }),
    ],
    [
      'tampered payload (other user id)',
      `${head}.${b64({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), user: { ...user, _id: NOTE_ID } })}.${sig}`,
    ],
    ['tampered payload (exp pushed back)', `${head}.${b64({ user, iat: 1, exp: 9_999_999_999 })}.${sig}`],
    ['tampered header (kid added)', `${b64({ alg: 'HS256', typ: 'JWT', kid: '../../etc/passwd' })}.${body}.${sig}`],
    ['signature removed', `${head}.${body}.`],
    ['signature of another token', `${head}.${body}.${hs('HS256', { expiresIn: HOUR * 2 }).split('.')[2]}`],
    [
      'expired',
      createSigner({ key: TEST_SECRET, algorithm: 'HS256', expiresIn: 1000, clockTimestamp: Date.now() - HOUR })({
        user,
      }),
    ],
    ['no exp', hs('HS256')],
    ['nbf in the future', hs('HS256', { expiresIn: HOUR, notBefore: HOUR / 2 })],
    // Correctly signed, unexpired, but "issued" later than now plus the 60 s clock skew.
    ['iat a day in the future', hs('HS256', { expiresIn: HOUR, clockTimestamp: Date.now() + DAY })],
    ['iat two minutes in the future', hs('HS256', { expiresIn: HOUR, clockTimestamp: Date.now() + 2 * 60_000 })],
    [
      'iat a day ahead, exp in an hour',
      signedWithRealSecret({ user, iat: seconds(Date.now() + DAY), exp: seconds(Date.now() + HOUR) }),
    ],
    [
      'iat not a number',
      signedWithRealSecret({ user, iat: new Date().toISOString(), exp: seconds(Date.now() + HOUR) }),
    ],
    ['iat null', signedWithRealSecret({ user, iat: null, exp: seconds(Date.now() + HOUR) })],
    ['no user claim', createSigner({ key: TEST_SECRET, algorithm: 'HS256', expiresIn: HOUR })({ sub: a.userId })],
    [
      'user._id not a string',
      createSigner({ key: TEST_SECRET, algorithm: 'HS256', expiresIn: HOUR })({ user: { ...user, _id: 42 } }),
    ],
    [
      'user that never existed',
      createSigner({ key: TEST_SECRET, algorithm: 'HS256', expiresIn: HOUR })({ user: { ...user, _id: NOTE_ID } }),
    ],
    ['header is not an object', `${b64([1])}.${body}.${sig}`],
    ['payload is not JSON', `${head}.${b64('not json')}.${sig}`],
    ['two parts', `${head}.${body}`],
    ['four parts', `${a.token}.${sig}`],
    ['garbage', 'not.a.token'],
    ['empty parts', '..'],
    ['very long', 'a'.repeat(7000)],
  ]
}

/** Authorization headers that carry no usable token (the token is the second space-separated word). */
function oddHeaders(a: Account): Array<[string, Record<string, string>]> {
  return [
    ['no header', {}],
    ['empty', { authorization: '' }],
    ['scheme only', { authorization: 'Bearer' }],
    ['scheme and space', { authorization: 'Bearer ' }],
    ['token without scheme', { authorization: a.token }],
    ['tab instead of space', { authorization: `Bearer\t${a.token}` }],
    ['two spaces', { authorization: `Bearer  ${a.token}` }],
    ['Basic credentials', { authorization: `Basic ${Buffer.from(`${a.email}:${a.password}`).toString('base64')}` }],
    ['latin-1 bytes', { authorization: 'Bearer \u00e9\u00ff\u00e0' }],
    ['null word', { authorization: 'Bearer null' }],
    ['token in a cookie instead', { cookie: `token=${a.token}` }],
  ]
}

async function assertAllUnauthorized(h: Harness, label: string, headers: Record<string, string>) {
  for (const [method, path, body] of PROTECTED) {
    const res = await h.client.request(method, path, { headers, ...(body ? { body } : {}) })
    assert.equal(res.status, 401, `${label}: ${method} ${path} answered ${res.status} ${res.text.slice(0, 200)}`)
    assert.equal(res.text, 'Unauthorized', `${label}: ${method} ${path}`)
    assert.match(String(res.headers['content-type']), /^text\/plain/, `${label}: ${method} ${path}`)
  }
}

for (const mode of MODES) {
  describe(`tokens (${mode})`, () => {
    let h: Harness
    let a: Account
    before(async () => {
      h = await startHarness(mode)
      a = await register(h.client)
    })
    after(async () => h.close())

    it('the real token works, so each 401 below is about the token', async () => {
      assert.equal((await h.client.request('GET', '/get-all-notes', { token: a.token })).status, 200)
    })

    it('refuses alg none, other algorithms, wrong keys, tampering, expiry, missing exp, future nbf and iat', async () => {
      for (const [label, token] of forgedTokens(a))
        await assertAllUnauthorized(h, label, { authorization: `Bearer ${token}` })
    })

    it('accepts a token whose iat is ahead by less than the 60 s clock skew, or absent', async () => {
      const user = { _id: a.userId, fullName: 'Test User', email: a.email, createdOn: new Date().toISOString() }
      const tokens: Array<[string, string]> = [
        [
          'iat 30 s ahead',
          createSigner({ key: TEST_SECRET, algorithm: 'HS256', expiresIn: HOUR, clockTimestamp: Date.now() + 30_000 })({
            user,
          }),
        ],
        ['no iat', signedWithRealSecret({ user, exp: seconds(Date.now() + HOUR) })],
      ]
      for (const [label, token] of tokens) {
        const res = await h.client.request('GET', '/get-all-notes', { token })
        assert.equal(res.status, 200, `${label}: ${res.text}`)
      }
    })

    it('refuses empty and odd Authorization headers', async () => {
      for (const [label, headers] of oddHeaders(a)) await assertAllUnauthorized(h, label, headers)
    })
  })

  describe(`tokens of a deleted user (${mode})`, () => {
    const tmp = tempDir('notes-tokens-')
    let h: Harness
    let a: Account
    before(async () => {
      h = await startHarness(mode, { store: openSqliteStore({ dataDir: tmp.path, limits: SERVICE_LIMITS }) })
      a = await register(h.client)
      await addNote(h.client, a.token, { title: 'orphan', content: 'soon gone' })
      // The account and its listing are now in the store's caches; they must not answer for it.
      assert.equal((await h.client.request('GET', '/get-all-notes', { token: a.token })).status, 200)
      assert.equal((await h.client.request('GET', '/get-user', { token: a.token })).status, 200)
      // No endpoint deletes an account: remove it behind the service's back, as an operator might.
      const db = new Database(`${tmp.path}/${SQLITE_FILE}`)
      db.prepare('DELETE FROM notes WHERE user_id = ?').run(a.userId)
      db.prepare('DELETE FROM users WHERE id = ?').run(a.userId)
      db.close()
    })
    after(async () => {
      await h.close()
      tmp.remove()
    })

    it('answers 401 on every protected endpoint for a valid token whose user no longer exists', async () => {
      await assertAllUnauthorized(h, 'deleted user', { authorization: `Bearer ${a.token}` })
    })
  })
}
