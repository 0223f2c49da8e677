// The request and store metrics of src/plugins/metrics/, checked against their definitions:
// every answered request is counted under (method, route pattern or "(unmatched)", status), as
// `request.routeOptions.url` names it, and every Store call under (operation, ok | error).
// The per-route hooks and the plain-object timed store that record them are built for speed;
// these tests keep them equal to what docs/operations.md documents. The attachment counters move with uploads of each
// outcome, downloads and thumbnails.
import assert from 'node:assert/strict'
import type { Readable } from 'node:stream'
import { describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../src/app.js'
import { UNMATCHED_ROUTE, createMetrics } from '../src/plugins/metrics/definitions.js'
import { timedStore } from '../src/plugins/metrics/hooks.js'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { type Store, StoreUnavailableError } from '../src/store/types.js'
import { diskBlobs } from '../src/blobs/disk.js'
import { defaultConfig } from '../src/config.js'
import { uploadFile, uploaded } from './support/attachments.js'
import { MODES, TEST_SECRET, register, startHarness, testConfig } from './support/harness.js'
import { picture } from './support/pictures.js'
import { tempDir } from './support/temp.js'
import { SERVICE_LIMITS } from './support/stores.js'

/** Every sample of one metric family, keyed by its label set as written in the text format. */
function samples(text: string, metric: string): Map<string, number> {
  const found = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue
    const space = line.lastIndexOf(' ')
    found.set(line.slice(metric.length, space), Number(line.slice(space + 1)))
  }
  return found
}

function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line ? Number(line.slice(series.length + 1)) : 0
}

/**
 * The app with a second onResponse hook that tallies each response the way the metric is
 * defined (the original implementation read `request.routeOptions.url` in one app-level hook).
 */
async function appWithReference(store: Store): Promise<{ app: FastifyInstance; expected: Map<string, number> }> {
  const app = await buildApp({ config: testConfig(), store, secret: TEST_SECRET })
  const expected = new Map<string, number>()
  app.addHook('onResponse', (request, reply, done) => {
    const key = `{method="${request.method}",route="${request.routeOptions.url ?? UNMATCHED_ROUTE}",status_code="${reply.statusCode}"}`
    expected.set(key, (expected.get(key) ?? 0) + 1)
    done()
  })
  return { app, expected }
}

for (const mode of MODES) {
  describe(`request metrics (${mode})`, () => {
    it('labels every answered request with its route pattern, "(unmatched)" when no route matched', async () => {
      const store = openSqliteStore({ dataDir: ':memory:', limits: SERVICE_LIMITS })
      const { app, expected } = await appWithReference(store)
      let base = ''
      if (mode === 'http') base = await app.listen({ port: 0, host: '127.0.0.1' })
      else await app.ready()
      const send = async (method: string, url: string, headers: Record<string, string> = {}, body?: string) => {
        if (mode === 'inject') {
          const res = await app.inject({
            method: method as 'GET',
            url,
            headers,
            ...(body !== undefined ? { payload: body } : {}),
          })
          return { status: res.statusCode, text: res.body }
        }
        const res = await fetch(base + url, { method, headers, ...(body !== undefined ? { body } : {}) })
        return { status: res.status, text: await res.text() }
      }
      const json = { 'content-type': 'application/json' }
      try {
        const account = await send(
          'POST',
          '/create-account',
          json,
          JSON.stringify({ fullName: 'M', email: 'm@example.com', password: 'pw' }),
        )
        const { accessToken } = JSON.parse(account.text) as { accessToken: string }
        const auth = { authorization: `Bearer ${accessToken}` }
        const added = await send(
          'POST',
          '/add-note',
          { ...json, ...auth },
          JSON.stringify({ title: 't', content: 'c' }),
        )
        const noteId = (JSON.parse(added.text) as { note: { _id: string } }).note._id
        const requests: Array<[string, string, Record<string, string>?, string?]> = [
          ['GET', '/healthz'],
          ['HEAD', '/healthz'],
          ['GET', '/healthz/'],
          ['GET', '/healthz?probe=1'],
          ['GET', '/readyz'],
          ['GET', '/get-user'],
          ['GET', '/get-user', { authorization: 'Bearer not.a.token' }],
          ['GET', '/get-user', auth],
          ['GET', '/get-all-notes', auth],
          ['GET', '/search-notes?query=t', auth],
          ['PUT', `/edit-note/${noteId}`, { ...json, ...auth }, JSON.stringify({ title: 'u' })],
          ['PUT', '/edit-note/000000000000000000000000', { ...json, ...auth }, JSON.stringify({ title: 'u' })],
          ['PUT', `/update-note-pinned/${noteId}`, { ...json, ...auth }, JSON.stringify({ isPinned: true })],
          ['POST', '/add-note', { ...json, ...auth }, '{not json'],
          ['POST', '/add-note', { 'content-type': 'text/plain', ...auth }, 'x'],
          ['POST', '/login', json, JSON.stringify({ email: 'm@example.com', password: 'wrong' })],
          ['DELETE', `/delete-note/${noteId}`, auth],
          ['OPTIONS', '/get-user', { origin: 'https://a.example', 'access-control-request-method': 'GET' }],
          ['OPTIONS', '/get-user'],
          ['GET', '/no-such-path'],
          ['POST', '/no-such-path'],
          ['DELETE', '/'],
          ['GET', '/edit-note/%FF'],
          ['GET', '/openapi.json'],
          ['GET', '/docs'],
          ['GET', '/metrics'],
        ]
        for (const [method, url, headers, body] of requests) await send(method, url, headers, body)
        // Recorded in onResponse, which may run just after the client has the answer.
        await new Promise((resolve) => setImmediate(resolve))
        const want = new Map(expected)
        const text = (await send('GET', '/metrics')).text
        assert.deepEqual(samples(text, 'http_requests_total'), want)
        assert.deepEqual(samples(text, 'http_request_duration_seconds_count'), want)
        // The cases that matter most, spelt out.
        for (const series of [
          '{method="GET",route="(unmatched)",status_code="404"}',
          '{method="PUT",route="/edit-note/:noteId",status_code="404"}',
          '{method="HEAD",route="/healthz",status_code="200"}',
          '{method="OPTIONS",route="*",status_code="204"}',
          '{method="GET",route="/get-user",status_code="401"}',
        ]) {
          assert.ok((want.get(series) ?? 0) >= 1, series)
        }
        assert.doesNotMatch(text, /no-such-path/)
      } finally {
        await app.close()
        await store.close()
      }
    })
  })
}

describe('store metrics', () => {
  it('counts a failing Store call with outcome="error", and the request still gets its answer', async () => {
    const real = openSqliteStore({ dataDir: ':memory:', limits: SERVICE_LIMITS })
    const failing: Store = {
      ...real,
      // The authenticate hook's one lookup for a token that names a session.
      findSession: async () => {
        throw new StoreUnavailableError('connection refused')
      },
    }
    const app = await buildApp({ config: testConfig(), store: failing, secret: TEST_SECRET })
    try {
      const account = await app.inject({
        method: 'POST',
        url: '/create-account',
        payload: { fullName: 'E', email: 'e@example.com', password: 'pw' },
      })
      const { accessToken } = account.json<{ accessToken: string }>()
      const res = await app.inject({
        method: 'GET',
        url: '/get-user',
        headers: { authorization: `Bearer ${accessToken}` },
      })
      assert.equal(res.statusCode, 503)
      assert.deepEqual(res.json(), { error: true, message: 'Service Unavailable: the database cannot be reached' })
      const text = (await app.inject({ method: 'GET', url: '/metrics' })).body
      assert.equal(sample(text, 'store_query_duration_seconds_count{operation="findSession",outcome="error"}'), 1)
      assert.equal(sample(text, 'store_query_duration_seconds_count{operation="findSession",outcome="ok"}'), 0)
      assert.equal(sample(text, 'store_query_duration_seconds_count{operation="createUser",outcome="ok"}'), 1)
      assert.equal(sample(text, 'http_requests_total{method="GET",route="/get-user",status_code="503"}'), 1)
    } finally {
      await app.close()
      await real.close()
    }
  })

  it('times every method of the store, inherited ones too, and passes arguments, results and errors through unchanged', async () => {
    const metrics = createMetrics()
    const failure = new Error('boom')
    const calls: unknown[][] = []
    const base = {
      findUserById: async (...args: unknown[]) => {
        calls.push(args)
        return undefined
      },
      listNotesJson: async () => {
        throw failure
      },
      // A driver that throws before returning a promise: still a rejection, still an error.
      findNote: (() => {
        throw failure
      }) as unknown as Store['findNote'],
      ping: async () => {},
    }
    let closed = 0
    const store = Object.assign(Object.create(base) as Store, {
      ping: async () => {}, // shadows the inherited one
      close: async () => {
        closed++
      },
    })
    const timed = timedStore(store, metrics)
    assert.equal(await timed.findUserById('abc'), undefined)
    assert.deepEqual(calls, [['abc']])
    await assert.rejects(timed.listNotesJson('u'), (err) => err === failure)
    const pending = timed.findNote('u', 'n')
    assert.ok(pending instanceof Promise)
    await assert.rejects(pending, (err) => err === failure)
    await timed.ping()
    await timed.close()
    assert.equal(closed, 1)
    const text = await metrics.registry.metrics()
    for (const [series, count] of [
      ['{operation="findUserById",outcome="ok"}', 1],
      ['{operation="listNotesJson",outcome="error"}', 1],
      ['{operation="findNote",outcome="error"}', 1],
      ['{operation="ping",outcome="ok"}', 1],
    ] as const) {
      assert.equal(sample(text, `store_query_duration_seconds_count${series}`), count, series)
    }
    assert.doesNotMatch(text, /operation="close"/)
  })
})

describe('attachment metrics', () => {
  it('counts uploads by outcome and their bytes, downloads and their bytes, and thumbnails made or cached', async () => {
    const limits = { megabytes: 1, megabytesPerAccount: 1 }
    const h = await startHarness('inject', { config: { attachments: { ...defaultConfig.attachments, ...limits } } })
    try {
      const a = await register(h.client)
      const text = await uploaded(h, a.token, { filename: 'a.txt', bytes: 'x'.repeat(1000) })
      const photo = await uploaded(h, a.token, { filename: 'p.png', bytes: await picture(300, 200) })

      assert.equal((await h.client.request('GET', text.url, { token: a.token })).status, 200)
      const range = { range: 'bytes=0-99' }
      assert.equal((await h.client.request('GET', text.url, { token: a.token, headers: range })).status, 206)
      // No body: not a download.
      const etag = { 'if-none-match': `"${text.sha256}"` }
      assert.equal((await h.client.request('GET', text.url, { token: a.token, headers: etag })).status, 304)
      assert.equal((await h.client.request('HEAD', text.url, { token: a.token })).status, 200)
      for (let i = 0; i < 2; i++) {
        const thumbnail = await h.client.request('GET', `/attachments/${photo._id}/thumbnail?width=64`, {
          token: a.token,
        })
        assert.equal(thumbnail.status, 200)
      }

      // Past MAX_ATTACHMENT_MB by its declared length (refused before the body), then by its bytes.
      for (const size of [1.5 * 2 ** 20, 2 ** 20 + 10]) {
        const big = await uploadFile(h, a.token, { filename: 'big.bin', bytes: Buffer.alloc(size) })
        assert.equal(big.status, 413, String(size))
      }
      const json = await h.client.request('POST', '/upload-attachment', { token: a.token, body: { file: 'x' } })
      assert.equal(json.status, 400)
      const fill = 2 ** 20 - text.size - photo.size - 1000
      await uploaded(h, a.token, { filename: 'fill.bin', bytes: Buffer.alloc(fill) })
      // Passes the check before the body; the quota's transaction refuses it.
      const over = await uploadFile(h, a.token, { filename: 'over.bin', bytes: Buffer.alloc(5000) })
      assert.equal(over.status, 403, over.text)

      await new Promise((resolve) => setImmediate(resolve))
      const scraped = (await h.client.request('GET', '/metrics')).text
      const expected: Array<[string, number]> = [
        ['attachment_uploads_total{outcome="stored"}', 3],
        ['attachment_uploads_total{outcome="too_large"}', 2],
        ['attachment_uploads_total{outcome="refused"}', 1],
        ['attachment_uploads_total{outcome="over_quota"}', 1],
        ['attachment_uploads_total{outcome="failed"}', 0],
        ['attachment_upload_bytes_total', text.size + photo.size + fill],
        ['attachment_downloads_total', 2],
        ['attachment_download_bytes_total', 1000 + 100],
        ['attachment_thumbnails_total{source="made"}', 1],
        ['attachment_thumbnails_total{source="cache"}', 1],
      ]
      assert.deepEqual(
        expected.map(([series]) => [series, sample(scraped, series)]),
        expected,
      )
    } finally {
      await h.close()
    }
  })

  it('counts an upload the storage fails as failed, with no bytes', async () => {
    const dir = tempDir('notes-blobs-')
    const disk = diskBlobs(dir.path)
    const broken = {
      ...disk,
      write: async (_id: string, source: Readable) => {
        source.destroy()
        throw new Error('the disk is gone')
      },
    }
    const h = await startHarness('inject', { blobs: broken })
    try {
      const a = await register(h.client)
      const reply = await uploadFile(h, a.token, { filename: 'a.txt', bytes: 'x'.repeat(1000) })
      assert.equal(reply.status, 500)
      const scraped = (await h.client.request('GET', '/metrics')).text
      assert.equal(sample(scraped, 'attachment_uploads_total{outcome="failed"}'), 1)
      assert.equal(sample(scraped, 'attachment_uploads_total{outcome="stored"}'), 0)
      assert.equal(sample(scraped, 'attachment_upload_bytes_total'), 0)
    } finally {
      await h.close()
      await disk.close()
      dir.remove()
    }
  })
})
