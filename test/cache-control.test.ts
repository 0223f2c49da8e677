// `Cache-Control: no-store` on every answer of the API (src/app.ts): tokens and accounts' data
// are never kept by a browser's cache or a proxy. Over a real socket, on both stores: every
// documented operation on success, the bare 401 of every protected one, the other errors (400,
// 404, 413, 415, an unknown route), and the service's own paths; the 401 and the CORS preflight
// otherwise exactly as before; and the web app's pages and files keep their own caching.
import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { ACCOUNT_OPERATIONS } from './support/account-operations.js'
import { HISTORY_OPERATIONS, historyPath } from './support/history-operations.js'
import { CONTRACT_OPERATIONS } from './support/contract-operations.js'
import {
  type Account,
  type Harness,
  type Reply,
  addNote,
  register,
  startHarness,
  uniqueEmail,
} from './support/harness.js'
import { storeKinds } from './support/stores.js'
import { tempDir } from './support/temp.js'

const OTHER_OPERATIONS: ReadonlyArray<readonly [string, string]> = [
  ['get', '/healthz'],
  ['get', '/readyz'],
  ['get', '/openapi.json'],
]

const NOTE_ID = '0123456789abcdef01234567'

const cacheControl = (reply: Reply) => reply.headers['cache-control']

/** A request of this operation that succeeds: the path, its body, and the token (an account of its own where the operation ends a session or the account). */
async function successfulRequest(
  h: Harness,
  account: Account,
  method: string,
  template: string,
): Promise<{ url: string; body?: unknown; token: string }> {
  if (ACCOUNT_OPERATIONS.some(([m, t]) => m === method && t === template)) {
    const own = await register(h.client)
    const sessions = (await h.client.request('GET', '/get-sessions', { token: own.token })).json as {
      sessions: Array<{ _id: string }>
    }
    const bodies: Record<string, unknown> = {
      'put /change-password': { currentPassword: own.password, newPassword: 'another horse battery staple' },
      'put /edit-user': { fullName: 'Renamed' },
      'delete /delete-account': { password: own.password },
    }
    return {
      url: template.replace('{sessionId}', sessions.sessions[0]?._id ?? ''),
      body: bodies[`${method} ${template}`],
      token: own.token,
    }
  }
  if (HISTORY_OPERATIONS.some(([m, t]) => m === method && t === template))
    return { url: await historyPath(h.client, account.token, template), token: account.token }
  const noteId = template.includes('{noteId}')
    ? (await addNote(h.client, account.token, { title: 'cached?', content: 'no' }))._id
    : ''
  const bodies: Record<string, unknown> = {
    'post /create-account': {
      fullName: 'No Store',
      email: uniqueEmail('store'),
      password: 'correct horse battery staple',
    },
    'post /login': { email: account.email, password: account.password },
    'post /add-note': { title: 'cached?', content: 'no' },
    'put /edit-note/{noteId}': { title: 'edited' },
    'put /update-note-pinned/{noteId}': { isPinned: true },
  }
  const url = template.replace('{noteId}', noteId) + (template === '/search-notes' ? '?query=cached' : '')
  return { url, body: bodies[`${method} ${template}`], token: account.token }
}

for (const kind of storeKinds()) {
  describe(`Cache-Control: no-store on every API answer (http, ${kind})`, () => {
    let h: Harness
    let a: Account
    before(async () => {
      // The body limit is small so the 413 below is cheap to provoke.
      h = await startHarness('http', { storeKind: kind, config: { bodyLimit: 4096 } })
      a = await register(h.client)
    })
    after(async () => h.close())

    for (const [method, template] of [
      ...CONTRACT_OPERATIONS,
      ...ACCOUNT_OPERATIONS,
      ...HISTORY_OPERATIONS,
      ...OTHER_OPERATIONS,
    ]) {
      const verb = method.toUpperCase()
      it(`${verb} ${template}: no-store on success`, async () => {
        const { url, body, token } = await successfulRequest(h, a, method, template)
        const reply = await h.client.request(verb, url, { token, ...(body === undefined ? {} : { body }) })
        assert.equal(reply.status, 200, `${verb} ${url}: ${reply.text.slice(0, 200)}`)
        assert.equal(cacheControl(reply), 'no-store', `${verb} ${url}`)
      })
    }

    it('the bare 401 of every protected operation: no-store, and otherwise the plain text "Unauthorized" as before', async () => {
      const protectedOperations = [...CONTRACT_OPERATIONS, ...ACCOUNT_OPERATIONS, ...HISTORY_OPERATIONS].filter(
        ([, t]) => t !== '/create-account' && t !== '/login',
      )
      for (const [method, template] of protectedOperations) {
        const url =
          template.replace('{noteId}', NOTE_ID).replace('{sessionId}', NOTE_ID).replace('{revisionId}', NOTE_ID) +
          (template === '/search-notes' ? '?query=x' : '')
        for (const token of [undefined, 'not.a.token']) {
          const reply = await h.client.request(method.toUpperCase(), url, token === undefined ? {} : { token })
          const where = `${method.toUpperCase()} ${url} ${token ?? 'no token'}`
          assert.equal(reply.status, 401, where)
          assert.equal(reply.text, 'Unauthorized', where)
          assert.equal(reply.headers['content-type'], 'text/plain; charset=utf-8', where)
          assert.equal(reply.headers['access-control-allow-origin'], '*', where)
          assert.equal(cacheControl(reply), 'no-store', where)
        }
      }
    })

    it('every other error answer: no-store', async () => {
      const errors: Array<[string, string, Parameters<Harness['client']['request']>[2], number]> = [
        ['POST', '/create-account', { body: { email: uniqueEmail() } }, 400],
        ['POST', '/create-account', { body: { fullName: 'X', email: a.email, password: 'pw' } }, 200], // "User already exists"
        ['POST', '/login', { body: { email: a.email, password: 'wrong' } }, 400],
        ['POST', '/login', { raw: '{"email": ', headers: { 'content-type': 'application/json' } }, 400],
        [
          'POST',
          '/login',
          { raw: Buffer.from([0x7b, 0xff, 0x7d]), headers: { 'content-type': 'application/json' } },
          400,
        ],
        ['PUT', '/edit-user', { token: a.token, body: { fullName: 'bell\u0007' } }, 400],
        ['POST', '/add-note', { token: a.token, body: { content: 'no title' } }, 400],
        ['PUT', `/edit-note/${NOTE_ID}`, { token: a.token, body: { title: 'x' } }, 404],
        ['DELETE', '/delete-note/%FF', { token: a.token }, 404],
        ['PUT', `/update-note-pinned/${NOTE_ID}`, { token: a.token, body: { isPinned: true } }, 404],
        ['GET', '/search-notes?query=(', { token: a.token }, 400],
        ['DELETE', `/delete-session/${NOTE_ID}`, { token: a.token }, 404],
        ['POST', '/add-note', { token: a.token, body: { title: 't', content: 'x'.repeat(5000) } }, 413],
        ['POST', '/add-note', { token: a.token, raw: 'title=t', headers: { 'content-type': 'text/plain' } }, 415],
        ['GET', '/no-such-path', {}, 404],
      ]
      for (const [method, url, options, status] of errors) {
        const reply = await h.client.request(method, url, options)
        assert.equal(reply.status, status, `${method} ${url}: ${reply.text.slice(0, 200)}`)
        assert.equal(typeof (reply.json as { message?: unknown }).message, 'string', `${method} ${url}: a JSON answer`)
        assert.equal(cacheControl(reply), 'no-store', `${method} ${url} → ${status}`)
      }
    })

    it('answers outside any route: a path the router cannot read, bytes that are not HTTP', async () => {
      const unroutable = await h.client.request('GET', '/delete-note/%FF')
      assert.deepEqual([unroutable.status, cacheControl(unroutable)], [404, 'no-store'])
      const port = (h.app.server.address() as { port: number }).port
      const answer = await new Promise<string>((resolve, reject) => {
        let out = ''
        const socket = connect(port, '127.0.0.1', () => socket.write('GET / HTTP/9.9\r\n\r\n'))
        socket.setEncoding('latin1')
        socket.on('data', (d: string) => (out += d))
        socket.on('error', reject)
        socket.on('close', () => resolve(out))
      })
      assert.match(answer, /^HTTP\/1\.1 400 [^]*\r\nCache-Control: no-store\r\n[^]*\r\n\r\n\{"error":true,/)
    })

    it('the CORS preflight is answered as before (204, no body, the same CORS headers), with no-store beside them', async () => {
      const reply = await h.client.request('OPTIONS', '/get-user', {
        headers: {
          origin: 'https://elsewhere.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      })
      assert.equal(reply.status, 204)
      assert.equal(reply.text, '')
      assert.equal(reply.headers['access-control-allow-origin'], '*')
      assert.equal(reply.headers['access-control-allow-methods'], 'GET,HEAD,PUT,PATCH,POST,DELETE')
      assert.equal(reply.headers['access-control-allow-headers'], 'authorization')
      assert.equal(reply.headers['access-control-max-age'], undefined)
      assert.equal(cacheControl(reply), 'no-store')
    })
  })
}

describe('the web app keeps its own caching (http)', () => {
  const web = tempDir('notes-web-')
  let h: Harness
  before(async () => {
    mkdirSync(join(web.path, 'docs'))
    mkdirSync(join(web.path, 'assets'))
    writeFileSync(join(web.path, 'index.html'), '<!doctype html><title>app</title>')
    writeFileSync(join(web.path, 'docs', 'index.html'), '<!doctype html><title>docs</title>')
    writeFileSync(join(web.path, 'assets', 'app-0123abcd.js'), 'console.log(1)')
    writeFileSync(join(web.path, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
    h = await startHarness('http', { webRoot: web.path })
  })
  after(async () => {
    await h.close()
    web.remove()
  })

  it('pages and /docs revalidate, hashed assets are immutable, other files revalidate', async () => {
    const expected: Array<[string, string]> = [
      ['/', 'no-cache'],
      ['/sign-in', 'no-cache'],
      ['/account', 'no-cache'],
      ['/trash', 'no-cache'],
      ['/docs', 'no-cache'],
      ['/assets/app-0123abcd.js', 'public, max-age=31536000, immutable'],
      ['/favicon.svg', 'no-cache'],
    ]
    for (const [path, cache] of expected) {
      const reply = await h.client.request('GET', path)
      assert.equal(reply.status, 200, path)
      assert.equal(cacheControl(reply), cache, path)
    }
  })
})
