// Error bodies are serialised through the documented response schemas (each feature's file in
// src/schemas/). This pins their exact bytes, key order included, as the error handler
// wrote them before any schema existed, so documenting them can never change what clients read.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { defaultConfig } from '../src/config.js'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { StoreUnavailableError } from '../src/store/types.js'
import { type Account, type Harness, MODES, register, startHarness } from './support/harness.js'
import { SERVICE_LIMITS, type TestStore } from './support/stores.js'

const id = '0123456789abcdef01234567'

/** Listing fails like a lost database; deleteNote like a bug. */
function partlyFailingStore(real: TestStore): TestStore {
  return {
    ...real,
    listNotesJson: async () => {
      throw new StoreUnavailableError('connection refused')
    },
    deleteNote: async () => {
      throw new Error('disk on fire')
    },
  }
}

for (const mode of MODES) {
  describe(`error bodies keep their bytes (${mode})`, () => {
    let h: Harness
    let a: Account
    before(async () => {
      const bruteForce = { ...defaultConfig.bruteForce, pairLimit: 1, registrationIpLimit: 1 }
      h = await startHarness(mode, {
        store: partlyFailingStore(openSqliteStore({ dataDir: ':memory:', limits: SERVICE_LIMITS })),
        config: { bodyLimit: 2048, bruteForce },
      })
      a = await register(h.client)
    })
    after(async () => h.close())

    const cases: Array<
      [
        string,
        string,
        (a: Account) => { body?: unknown; raw?: string; token?: string; headers?: Record<string, string> },
        number,
        string,
      ]
    > = [
      [
        'POST',
        '/add-note',
        (a) => ({ token: a.token, body: { content: 'c' } }),
        400,
        '{"message":"Title is required"}',
      ],
      [
        'POST',
        '/add-note',
        (a) => ({ token: a.token, body: { title: 't' } }),
        400,
        '{"message":"content is required"}',
      ],
      [
        'POST',
        '/add-note',
        (a) => ({ token: a.token, body: { title: 1, content: 'c' } }),
        400,
        '{"error":true,"message":"title must be a string"}',
      ],
      ['POST', '/create-account', () => ({ body: {} }), 400, '{"error":true,"message":"Full Name is required"}'],
      [
        'POST',
        '/create-account',
        () => ({ raw: '{"fullName":', headers: { 'content-type': 'application/json' } }),
        400,
        '{"error":true,"message":"Request body is not valid JSON"}',
      ],
      [
        'POST',
        '/login',
        (a) => ({ body: { email: a.email, password: 'wrong' } }),
        400,
        '{"error":true,"message":"Invalid Credentials"}',
      ],
      [
        'POST',
        '/login',
        (a) => ({ body: { email: a.email, password: 'wrong' } }),
        429,
        '{"error":true,"message":"Too many failed login attempts; try again later"}',
      ],
      [
        'POST',
        '/create-account',
        (a) => ({ body: { fullName: 'x', email: a.email, password: 'p' } }),
        200,
        '{"error":true,"message":"User already exists"}',
      ],
      [
        'POST',
        '/create-account',
        (a) => ({ body: { fullName: 'x', email: a.email, password: 'p' } }),
        429,
        '{"error":true,"message":"Too many registration attempts; try again later"}',
      ],
      ['GET', '/search-notes', (a) => ({ token: a.token }), 400, '{"error":true,"message":"Search query is required"}'],
      [
        'PUT',
        `/edit-note/${id}`,
        (a) => ({ token: a.token, body: { title: 't' } }),
        404,
        '{"error":true,"message":"Note not found"}',
      ],
      [
        'PUT',
        `/edit-note/${id}`,
        (a) => ({ token: a.token, raw: 'x'.repeat(4096), headers: { 'content-type': 'application/json' } }),
        413,
        '{"error":true,"message":"Request body is too large"}',
      ],
      [
        'PUT',
        `/update-note-pinned/${id}`,
        (a) => ({ token: a.token, raw: 'x', headers: { 'content-type': 'text/plain' } }),
        415,
        '{"error":true,"message":"Content-Type must be application/json"}',
      ],
      [
        'DELETE',
        `/delete-note/${id}`,
        (a) => ({ token: a.token }),
        500,
        '{"error":true,"message":"Internal Server Error "}',
      ],
      [
        'GET',
        '/get-all-notes',
        (a) => ({ token: a.token }),
        503,
        '{"error":true,"message":"Service Unavailable: the database cannot be reached"}',
      ],
      ['GET', '/get-user', () => ({}), 401, 'Unauthorized'],
      ['GET', '/no-such-route', () => ({}), 404, '{"error":true,"message":"Route GET /no-such-route not found"}'],
    ]
    for (const [method, path, options, status, text] of cases) {
      it(`${method} ${path} ${status}: ${text}`, async () => {
        const res = await h.client.request(method, path, options(a))
        assert.equal(res.status, status)
        assert.equal(res.text, text)
      })
    }
  })
}
