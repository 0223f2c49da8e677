// CORS as the described system's Express `cors()` with its defaults (docs/contract.md, "CORS"): for
// every operation the OpenAPI document describes (so a new endpoint is covered as it is added), and the API description
// itself, a browser's preflight gets 204 with origin `*`, the methods GET,HEAD,PUT,PATCH,POST,DELETE
// and the requested headers reflected; the answer itself (success or error) carries origin `*`.
// What Express `cors()` does not send is checked too: no credentials, no max-age, no exposed
// headers, no `Vary: Origin`. Run through inject and against a real listening server
// (test/system/cors-browser.test.ts runs the same flows in Chromium).
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ACCOUNT_OPERATIONS } from './support/account-operations.js'
import { uploaded } from './support/attachments.js'
import { multipartBody } from './support/multipart.js'
import { picture } from './support/pictures.js'
import { HISTORY_OPERATIONS, historyPath } from './support/history-operations.js'
import {
  type Account,
  type Harness,
  MODES,
  type Reply,
  addNote,
  register,
  startHarness,
  uniqueEmail,
} from './support/harness.js'
import { baseOf, openStream } from './support/sse.js'

/** Express `cors()`'s default methods (https://github.com/expressjs/cors#configuration-options). */
const EXPRESS_METHODS = 'GET,HEAD,PUT,PATCH,POST,DELETE'
const ORIGIN = 'http://localhost:5173'
const REQUESTED_HEADERS = 'authorization,content-type'

/** Routes whose answer is a stream: the answer's headers are read over a socket as they arrive. */
const STREAMING_OPERATIONS: ReadonlyArray<readonly [string, string]> = [['get', '/stream-changes']]

/** Every operation of the OpenAPI document, as method and path template: read from an app built for it. */
async function documentedOperations(): Promise<Array<readonly [string, string]>> {
  const h = await startHarness('inject', { checkResponses: false })
  try {
    const doc = h.app.swagger() as { paths: Record<string, Record<string, unknown>> }
    return Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => [method, path] as const),
    )
  } finally {
    await h.close()
  }
}

/** What each mode checks: every documented operation but the streams, and the API description, which it does not list. */
const OPERATIONS: ReadonlyArray<readonly [string, string]> = [
  ...(await documentedOperations()).filter(([m, p]) => !STREAMING_OPERATIONS.some(([sm, sp]) => sm === m && sp === p)),
  ['get', '/openapi.json'],
  ['get', '/docs'],
]

/**
 * A request of this operation that succeeds for `account`: the concrete path, its body, and the
 * token to send (an account of its own for the operations that end a session or the account).
 */
async function successfulRequest(
  h: Harness,
  account: Account,
  method: string,
  template: string,
): Promise<{ url: string; body?: unknown; token: string; form?: { raw: Buffer; contentType: string } }> {
  if (template === '/upload-attachment') {
    const { body, contentType } = multipartBody({ filename: 'cors.txt', bytes: 'across origins' })
    return { url: template, token: account.token, form: { raw: body, contentType } }
  }
  if (template === '/import-notes') {
    const { body, contentType } = multipartBody({ filename: 'cors.md', bytes: '# Across origins' })
    return { url: template, token: account.token, form: { raw: body, contentType } }
  }
  if (template === '/export-notes') return { url: '/export-notes?format=markdown', token: account.token }
  if (template === '/attachments/{attachmentId}/thumbnail') {
    const file = await uploaded(h, account.token, { filename: 'cors.png', bytes: await picture(8, 8) })
    return { url: `/attachments/${file._id}/thumbnail?width=64`, token: account.token }
  }
  if (template.startsWith('/attachments/') || template.includes('{attachmentId}')) {
    const file = await uploaded(h, account.token, { filename: 'cors.txt', bytes: 'across origins' })
    return { url: template.replace('{attachmentId}', file._id).replace('{*}', 'cors.txt'), token: account.token }
  }
  if (ACCOUNT_OPERATIONS.some(([m, t]) => m === method && t === template)) {
    const own = await register(h.client)
    const sessions = (await h.client.request('GET', '/get-sessions', { token: own.token })).json as {
      sessions: Array<{ _id: string }>
    }
    const url = template.replace('{sessionId}', sessions.sessions[0]?._id ?? '')
    const accountBodies: Record<string, unknown> = {
      'put /change-password': { currentPassword: own.password, newPassword: 'another horse battery staple' },
      'put /edit-user': { fullName: 'Renamed Across Origins' },
      'delete /delete-account': { password: own.password },
    }
    const body = accountBodies[`${method} ${template}`]
    return body === undefined ? { url, token: own.token } : { url, body, token: own.token }
  }
  if (HISTORY_OPERATIONS.some(([m, t]) => m === method && t === template))
    return { url: await historyPath(h.client, account.token, template), token: account.token }
  const needsNote = template.includes('{noteId}')
  const noteId = needsNote ? (await addNote(h.client, account.token, { title: 'cors', content: 'body' }))._id : ''
  const url = template.replace('{noteId}', noteId) + (template === '/search-notes' ? '?query=cors' : '')
  const bodies: Record<string, unknown> = {
    'post /create-account': {
      fullName: 'Cross Origin',
      email: uniqueEmail('cors'),
      password: 'correct horse battery staple',
    },
    'post /login': { email: account.email, password: account.password },
    'post /add-note': { title: 'cors', content: 'body' },
    'put /edit-note/{noteId}': { title: 'edited' },
    'put /update-note-pinned/{noteId}': { isPinned: true },
  }
  const body = bodies[`${method} ${template}`]
  return body === undefined ? { url, token: account.token } : { url, body, token: account.token }
}

function header(reply: Reply, name: string): string | undefined {
  const value = reply.headers[name]
  return Array.isArray(value) ? value.join(', ') : value
}

function varyNames(reply: Reply): string[] {
  return (header(reply, 'vary') ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean)
}

/** What Express `cors()` never sends with its defaults, on any response. */
function assertNothingExpressOmits(reply: Reply, where: string): void {
  assert.equal(header(reply, 'access-control-allow-credentials'), undefined, `${where}: no credentials`)
  assert.equal(header(reply, 'access-control-max-age'), undefined, `${where}: no max-age`)
  assert.equal(header(reply, 'access-control-expose-headers'), undefined, `${where}: no exposed headers`)
  assert.ok(!varyNames(reply).includes('origin'), `${where}: origin * needs no Vary: Origin (${header(reply, 'vary')})`)
}

function assertPreflight(reply: Reply, where: string, requestedHeaders: string | undefined): void {
  assert.equal(reply.status, 204, `${where}: ${reply.status} ${reply.text.slice(0, 200)}`)
  assert.equal(reply.text, '', `${where}: no body`)
  assert.equal(header(reply, 'access-control-allow-origin'), '*', where)
  assert.equal(header(reply, 'access-control-allow-methods'), EXPRESS_METHODS, where)
  assert.equal(header(reply, 'access-control-allow-headers'), requestedHeaders, `${where}: requested headers reflected`)
  assert.ok(
    varyNames(reply).includes('access-control-request-headers'),
    `${where}: Vary names the reflected header (${header(reply, 'vary')})`,
  )
  assertNothingExpressOmits(reply, where)
}

for (const mode of MODES) {
  describe(`CORS as Express cors() (${mode})`, () => {
    let h: Harness
    let a: Account
    before(async () => {
      // The body limit is small so the 413 below is cheap to provoke.
      h = await startHarness(mode, { config: { bodyLimit: 4096 } })
      a = await register(h.client)
    })
    after(async () => h.close())

    for (const [method, template] of OPERATIONS) {
      const verb = method.toUpperCase()
      it(`${verb} ${template}: preflight 204 allowing ${verb}, then the answer carries origin *`, async () => {
        const { url, body, token, form } = await successfulRequest(h, a, method, template)
        const where = `OPTIONS ${url} for ${verb}`
        const preflight = await h.client.request('OPTIONS', url, {
          headers: {
            origin: ORIGIN,
            'access-control-request-method': verb,
            'access-control-request-headers': REQUESTED_HEADERS,
          },
        })
        assertPreflight(preflight, where, REQUESTED_HEADERS)
        assert.ok(EXPRESS_METHODS.split(',').includes(verb), `${where}: ${verb} is allowed`)

        const actual = await h.client.request(verb, url, {
          token,
          headers: { origin: ORIGIN, ...(form && { 'content-type': form.contentType }) },
          ...(body === undefined ? {} : { body }),
          ...(form && { raw: form.raw }),
        })
        assert.equal(actual.status, 200, `${verb} ${url}: ${actual.text.slice(0, 200)}`)
        assert.equal(header(actual, 'access-control-allow-origin'), '*', `${verb} ${url}`)
        assert.equal(
          header(actual, 'access-control-allow-methods'),
          undefined,
          `${verb} ${url}: methods only on preflight`,
        )
        assertNothingExpressOmits(actual, `${verb} ${url}`)
      })
    }

    for (const [method, path] of STREAMING_OPERATIONS) {
      const verb = method.toUpperCase()
      it(`${verb} ${path}: preflight 204 allowing ${verb}, then the stream carries origin *`, async () => {
        const where = `OPTIONS ${path} for ${verb}`
        const preflight = await h.client.request('OPTIONS', path, {
          headers: {
            origin: ORIGIN,
            'access-control-request-method': verb,
            'access-control-request-headers': REQUESTED_HEADERS,
          },
        })
        assertPreflight(preflight, where, REQUESTED_HEADERS)
        // inject cannot hold a stream open: the answer itself is read over the socket.
        if (mode !== 'http') return
        const stream = await openStream(baseOf(h.app), { token: a.token, headers: { origin: ORIGIN } })
        try {
          assert.equal(stream.status, 200)
          const reply: Reply = {
            status: stream.status,
            headers: stream.headers,
            text: '',
            bytes: Buffer.alloc(0),
            json: undefined,
          }
          assert.equal(header(reply, 'access-control-allow-origin'), '*', `${verb} ${path}`)
          assert.equal(
            header(reply, 'access-control-allow-methods'),
            undefined,
            `${verb} ${path}: methods only on preflight`,
          )
          assertNothingExpressOmits(reply, `${verb} ${path}`)
        } finally {
          stream.close()
        }
      })
    }

    it('answers every preflight the same: any origin, any requested method and headers, no headers, unknown paths', async () => {
      const cases: Array<[string, Record<string, string>, string | undefined]> = [
        [
          '/edit-note/0123456789abcdef01234567',
          {
            origin: 'https://notes.example',
            'access-control-request-method': 'PATCH',
            'access-control-request-headers': 'x-custom, authorization',
          },
          'x-custom, authorization',
        ],
        [
          '/delete-note/0123456789abcdef01234567',
          { origin: 'null', 'access-control-request-method': 'DELETE' },
          undefined,
        ],
        [
          '/no-such-path',
          {
            origin: ORIGIN,
            'access-control-request-method': 'PUT',
            'access-control-request-headers': REQUESTED_HEADERS,
          },
          REQUESTED_HEADERS,
        ],
        // Express answers an OPTIONS without the preflight headers with the same 204.
        ['/get-all-notes', {}, undefined],
      ]
      for (const [url, headers, reflected] of cases) {
        assertPreflight(
          await h.client.request('OPTIONS', url, { headers }),
          `OPTIONS ${url} ${JSON.stringify(headers)}`,
          reflected,
        )
      }
    })

    it('error answers carry origin * too, so a page on another origin can read them', async () => {
      const errors: Array<[string, string, Parameters<Harness['client']['request']>[2], number]> = [
        ['GET', '/get-all-notes', {}, 401],
        ['PUT', '/edit-note/0123456789abcdef01234567', { token: a.token, body: { title: 'x' } }, 404],
        ['DELETE', '/delete-note/%FF', { token: a.token }, 404],
        ['POST', '/add-note', { token: a.token, body: { content: 'no title' } }, 400],
        ['POST', '/add-note', { token: a.token, body: { title: 't', content: 'x'.repeat(5000) } }, 413],
        ['POST', '/add-note', { token: a.token, raw: 'title=t', headers: { 'content-type': 'text/plain' } }, 415],
        ['GET', '/no-such-path', {}, 404],
      ]
      for (const [method, url, options, status] of errors) {
        const reply = await h.client.request(method, url, {
          ...options,
          headers: { origin: ORIGIN, ...options?.headers },
        })
        assert.equal(reply.status, status, `${method} ${url}: ${reply.text.slice(0, 200)}`)
        assert.equal(header(reply, 'access-control-allow-origin'), '*', `${method} ${url} → ${status}`)
        assertNothingExpressOmits(reply, `${method} ${url} → ${status}`)
      }
    })
  })
}
