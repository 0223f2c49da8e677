// What every endpoint shares (docs/contract.md, "Conventions"): authentication, CORS, body
// parsing, unknown routes and internal failures.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createSigner } from 'fast-jwt'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { type Account, type Harness, targets, TEST_SECRET, addNote, register, startHarness } from './support/harness.js'
import { SERVICE_LIMITS, type TestStore } from './support/stores.js'

const PROTECTED: Array<[string, string]> = [
  ['GET', '/get-user'],
  ['POST', '/add-note'],
  ['PUT', '/edit-note/0123456789abcdef01234567'],
  ['DELETE', '/delete-note/0123456789abcdef01234567'],
  ['PUT', '/update-note-pinned/0123456789abcdef01234567'],
  ['GET', '/get-all-notes'],
  ['GET', '/search-notes?query=a'],
]

for (const { mode, storeKind } of targets()) {
  describe(`protocol (${mode}, ${storeKind})`, () => {
    let h: Harness
    let a: Account
    before(async () => {
      h = await startHarness(mode, { storeKind, config: { bodyLimit: 4096 } })
      a = await register(h.client)
    })
    after(async () => h.close())

    it('answers 401 with the plain text "Unauthorized" on every protected endpoint without a valid token', async () => {
      const sign = createSigner({ key: TEST_SECRET, algorithm: 'HS256', expiresIn: 60_000 })
      const wrongKey = createSigner({ key: 'another-secret-that-is-32-bytes-long!!', algorithm: 'HS256' })
      const expired = createSigner({
        key: TEST_SECRET,
        algorithm: 'HS256',
        expiresIn: 1,
        clockTimestamp: Date.now() - 10_000,
      })
      const user = { _id: a.userId, fullName: 'x', email: a.email, createdOn: '' }
      const [head, body] = a.token.split('.')
      const noneToken = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${body}.`
      const badHeaders: Array<Record<string, string>> = [
        {},
        { authorization: '' },
        { authorization: 'Bearer' },
        { authorization: 'Bearer ' },
        { authorization: 'Bearer not.a.token' },
        { authorization: `Bearer ${a.token}x` },
        {
          authorization: `Bearer ${head}.${Buffer.from('{"user":{"_id":"x"}}').toString('base64url')}.${a.token.split('.')[2]}`,
        },
        { authorization: `Bearer ${wrongKey({ user })}` },
        { authorization: `Bearer ${expired({ user })}` },
        { authorization: `Bearer ${noneToken}` },
        { authorization: `Bearer ${createSigner({ key: TEST_SECRET, algorithm: 'HS256' })({ user })}` }, // no exp
        {
          authorization: `Bearer ${createSigner({ key: TEST_SECRET, algorithm: 'HS512', expiresIn: 60_000 })({ user })}`,
        },
        { authorization: `Bearer  ${a.token}` }, // the second space-separated part is empty
      ]
      for (const [method, path] of PROTECTED) {
        for (const headers of badHeaders) {
          const res = await h.client.request(method, path, { headers })
          assert.equal(res.status, 401, `${method} ${path} ${JSON.stringify(headers).slice(0, 60)}`)
          assert.equal(res.text, 'Unauthorized')
          assert.match(String(res.headers['content-type']), /^text\/plain/)
        }
      }
      // sanity: the valid signer's token is accepted, so the 401s above are about the tokens
      const ok = await h.client.request('GET', '/get-all-notes', {
        headers: { authorization: `Bearer ${sign({ user })}` },
      })
      assert.equal(ok.status, 200)
    })

    it('does not check the scheme word', async () => {
      const res = await h.client.request('GET', '/get-all-notes', { headers: { authorization: `Token ${a.token}` } })
      assert.equal(res.status, 200)
    })

    it('allows any origin, preflight included', async () => {
      const pre = await h.client.request('OPTIONS', '/add-note', {
        headers: {
          origin: 'https://example.org',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
      })
      assert.equal(pre.status, 204)
      assert.equal(pre.headers['access-control-allow-origin'], '*')
      assert.match(String(pre.headers['access-control-allow-methods']), /POST/)
      const res = await h.client.request('GET', '/get-all-notes', {
        token: a.token,
        headers: { origin: 'https://example.org' },
      })
      assert.equal(res.headers['access-control-allow-origin'], '*')
      const denied = await h.client.request('GET', '/get-all-notes', { headers: { origin: 'https://example.org' } })
      assert.equal(denied.headers['access-control-allow-origin'], '*')
    })

    it('answers 400 JSON for malformed JSON and for bodies that are not objects', async () => {
      for (const raw of ['{"title": ', '{bad json}', '[1,2]', '"text"', '42', 'null', 'true']) {
        const res = await h.client.request('POST', '/add-note', {
          token: a.token,
          raw,
          headers: { 'content-type': 'application/json' },
        })
        assert.equal(res.status, 400, raw)
        assert.equal((res.json as { error: boolean }).error, true)
        assert.equal(typeof (res.json as { message: string }).message, 'string')
      }
    })

    it('rejects __proto__ and constructor keys with 400 and pollutes nothing', async () => {
      const raw = '{"title":"t","content":"c","__proto__":{"polluted":true}}'
      const res = await h.client.request('POST', '/add-note', {
        token: a.token,
        raw,
        headers: { 'content-type': 'application/json' },
      })
      assert.equal(res.status, 400)
      assert.equal(({} as Record<string, unknown>).polluted, undefined)
    })

    it('answers 413 JSON for a body over the limit', async () => {
      const res = await h.client.request('POST', '/add-note', {
        token: a.token,
        body: { title: 't', content: 'x'.repeat(5000) },
      })
      assert.equal(res.status, 413)
      assert.deepEqual(res.json, { error: true, message: 'Request body is too large' })
    })

    it('answers 415 JSON for a body of another content type', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
        const res = await h.client.request('POST', '/add-note', {
          token: a.token,
          raw: 'title=t',
          headers: { 'content-type': type },
        })
        assert.equal(res.status, 415, type)
        assert.deepEqual(res.json, { error: true, message: 'Content-Type must be application/json' })
      }
    })

    it('counts an empty body with no content type as {}', async () => {
      const res = await h.client.request('POST', '/add-note', { token: a.token })
      assert.equal(res.status, 400)
      assert.deepEqual(res.json, { message: 'Title is required' })
      const login = await h.client.request('POST', '/login', {})
      assert.deepEqual(login.json, { error: true, message: 'Email is required' })
      const emptyJson = await h.client.request('POST', '/login', {
        raw: '',
        headers: { 'content-type': 'application/json' },
      })
      assert.deepEqual(emptyJson.json, { error: true, message: 'Email is required' })
    })

    it('accepts JSON with a charset parameter', async () => {
      const res = await h.client.request('POST', '/add-note', {
        token: a.token,
        raw: JSON.stringify({ title: 'é', content: 'ü' }),
        headers: { 'content-type': 'application/json; charset=utf-8' },
      })
      assert.equal(res.status, 200)
      assert.equal((res.json as { note: { title: string } }).note.title, 'é')
    })

    it('answers 404 JSON for an unknown path or method', async () => {
      for (const [method, path] of [
        ['GET', '/nope'],
        ['POST', '/get-all-notes'],
        ['GET', '/add-note'],
        ['PATCH', '/edit-note/x'],
      ]) {
        const res = await h.client.request(method!, path!, { token: a.token })
        assert.equal(res.status, 404, `${method} ${path}`)
        assert.equal((res.json as { error: boolean }).error, true)
        assert.equal(typeof (res.json as { message: string }).message, 'string')
      }
    })

    it('tolerates trailing slashes on every route', async () => {
      const note = await addNote(h.client, a.token, { title: 't', content: 'c' })
      assert.equal((await h.client.request('GET', '/get-user/', { token: a.token })).status, 200)
      assert.equal(
        (
          await h.client.request('PUT', `/update-note-pinned/${note._id}/`, {
            token: a.token,
            body: { isPinned: true },
          })
        ).status,
        200,
      )
      assert.equal(
        (await h.client.request('POST', '/login/', { body: { email: a.email, password: a.password } })).status,
        200,
      )
    })
  })
}

/** A store whose every call fails, to reach the contract's 500 answers. */
function failingStore(real: TestStore): TestStore {
  const fail = async () => {
    throw new Error('disk on fire')
  }
  return {
    ...real,
    insertNote: fail,
    updateNote: fail,
    findNote: fail,
    deleteNote: fail,
    listNotesJson: fail,
    searchNotesJson: fail,
  }
}

describe('internal failures answer the contract 500s', () => {
  let h: Harness
  let token: string
  before(async () => {
    const real = openSqliteStore({ dataDir: ':memory:', limits: SERVICE_LIMITS })
    h = await startHarness('http', { store: failingStore(real) })
    token = (await register(h.client)).token
  })
  after(async () => h.close())

  const id = '0123456789abcdef01234567'
  const cases: Array<[string, string, unknown, string]> = [
    ['POST', '/add-note', { title: 't', content: 'c' }, 'Internal Server Error'],
    ['PUT', `/edit-note/${id}`, { title: 't' }, 'Internal Server Error '],
    ['DELETE', `/delete-note/${id}`, undefined, 'Internal Server Error '],
    ['PUT', `/update-note-pinned/${id}`, { isPinned: true }, 'Internal Server Error '],
    ['GET', '/get-all-notes', undefined, 'Internal Server Error'],
    ['GET', '/search-notes?query=a', undefined, 'Internal Server Error'],
  ]
  for (const [method, path, body, message] of cases) {
    it(`${method} ${path.split('/')[1]} answers 500 "${message}"`, async () => {
      const res = await h.client.request(method, path, body === undefined ? { token } : { token, body })
      assert.equal(res.status, 500)
      assert.deepEqual(res.json, { error: true, message })
      assert.doesNotMatch(res.text, /disk on fire/)
    })
  }
})
