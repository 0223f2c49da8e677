// The API description, health and readiness, and metrics. The browser rendering of
// /docs is in docs-browser.test.ts.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import Fastify from 'fastify'
import { ConfigError, defaultConfig, parseConfig } from '../src/config.js'
import { healthRoutes } from '../src/routes/health.js'
import { startServer } from '../src/server.js'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { CONTRACT_OPERATIONS } from './support/contract-operations.js'
import { responseChecker } from './support/openapi-check.js'
import { type Account, type Harness, MODES, TEST_SECRET, addNote, register, startHarness } from './support/harness.js'
import { SERVICE_LIMITS, type TestStore } from './support/stores.js'

const OPERATIONS_PATHS = ['/openapi.json', '/docs', '/healthz', '/readyz', '/metrics']

type OpenApi = {
  openapi: string
  paths: Record<
    string,
    Record<string, { security?: unknown[]; responses: Record<string, { content?: Record<string, unknown> }> }>
  >
  components: { securitySchemes: Record<string, { type: string; scheme: string }> }
}

/** The value of one sample line of the Prometheus text format, 0 when the series is absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line ? Number(line.slice(series.length + 1)) : 0
}

/** A working store whose ping fails, as when the database went away. */
function storeWithFailingPing(): TestStore {
  const store = openSqliteStore({ dataDir: ':memory:', limits: SERVICE_LIMITS })
  return Object.assign(Object.create(store) as TestStore, {
    ping: async () => {
      throw new Error('connection refused')
    },
    close: () => store.close(),
  })
}

for (const mode of MODES) {
  describe(`operations (${mode})`, () => {
    let h: Harness
    let a: Account
    before(async () => {
      h = await startHarness(mode, { config: { bruteForce: { ...defaultConfig.bruteForce, pairLimit: 2 } } })
      a = await register(h.client)
    })
    after(async () => h.close())

    it('serves an OpenAPI 3.1 document that validates against the OpenAPI 3.1 schema', async () => {
      const res = await h.client.request('GET', '/openapi.json')
      assert.equal(res.status, 200)
      assert.match(String(res.headers['content-type']), /^application\/json/)
      const validator = new Validator()
      const result = await validator.validate(res.json as Parameters<Validator['validate']>[0])
      assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2))
      assert.equal(validator.version, '3.1')
    })

    it('documents every contract operation, the bearer scheme, the plain-text 401 and no operations path among them', async () => {
      const doc = (await h.client.request('GET', '/openapi.json')).json as OpenApi
      assert.equal(doc.openapi, '3.1.0')
      assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
        ...doc.components.securitySchemes.bearerAuth,
        type: 'http',
        scheme: 'bearer',
      })
      for (const [method, path] of CONTRACT_OPERATIONS) {
        const op = doc.paths[path]?.[method]
        assert.ok(op, `${method} ${path} is documented`)
        for (const status of ['200', '500', '503'])
          assert.ok(op.responses[status], `${method} ${path} documents ${status}`)
        const isProtected = !['/create-account', '/login'].includes(path)
        assert.deepEqual(op.security, isProtected ? [{ bearerAuth: [] }] : undefined, `${method} ${path} security`)
        if (isProtected) assert.deepEqual(Object.keys(op.responses['401']?.content ?? {}), ['text/plain'])
      }
      const contractPaths = new Set(CONTRACT_OPERATIONS.map(([, path]) => path.split('/')[1]))
      for (const path of OPERATIONS_PATHS) assert.ok(!contractPaths.has(path.split('/')[1]), `${path} collides`)
    })

    it('GET /healthz answers 200 without authentication', async () => {
      const res = await h.client.request('GET', '/healthz')
      assert.equal(res.status, 200)
      assert.deepEqual(res.json, { status: 'ok' })
    })

    it('GET /readyz answers 200 while the store answers', async () => {
      const res = await h.client.request('GET', '/readyz')
      assert.equal(res.status, 200)
      assert.deepEqual(res.json, { status: 'ok' })
    })

    it('GET /readyz answers 503 JSON when the store does not answer, while /healthz stays 200', async () => {
      const down = await startHarness(mode, { store: storeWithFailingPing() })
      try {
        const res = await down.client.request('GET', '/readyz')
        assert.equal(res.status, 503)
        assert.match(String(res.headers['content-type']), /^application\/json/)
        assert.deepEqual(res.json, { status: 'unavailable', message: 'The database does not answer' })
        assert.equal((await down.client.request('GET', '/healthz')).status, 200)
      } finally {
        await down.close()
      }
    })

    it('GET /metrics counts the request it just served, with its latency and its store queries', async () => {
      await addNote(h.client, a.token, { title: 't', content: 'c' })
      const series = 'http_requests_total{method="GET",route="/get-all-notes",status_code="200"}'
      const latency = 'http_request_duration_seconds_count{method="GET",route="/get-all-notes",status_code="200"}'
      const queries = 'store_query_duration_seconds_count{operation="listNotesJson",outcome="ok"}'
      const beforeText = (await h.client.request('GET', '/metrics')).text
      assert.equal((await h.client.request('GET', '/get-all-notes', { token: a.token })).status, 200)
      const res = await h.client.request('GET', '/metrics')
      assert.equal(res.status, 200)
      assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/)
      assert.equal(sample(res.text, series), sample(beforeText, series) + 1)
      assert.equal(sample(res.text, latency), sample(beforeText, latency) + 1)
      assert.equal(sample(res.text, queries), sample(beforeText, queries) + 1)
      for (const name of [
        'process_resident_memory_bytes',
        'nodejs_heap_size_used_bytes',
        'nodejs_eventloop_lag_p99_seconds',
      ]) {
        assert.match(res.text, new RegExp(`^${name} `, 'm'), name)
      }
    })

    it('GET /metrics counts failed logins and throttled requests', async () => {
      const text = async () => (await h.client.request('GET', '/metrics')).text
      const start = await text()
      for (let i = 0; i < 2; i++) {
        const res = await h.client.request('POST', '/login', { body: { email: a.email, password: 'wrong' } })
        assert.equal(res.status, 400)
      }
      const throttled = await h.client.request('POST', '/login', { body: { email: a.email, password: 'wrong' } })
      assert.equal(throttled.status, 429)
      const end = await text()
      assert.equal(sample(end, 'login_failures_total'), sample(start, 'login_failures_total') + 2)
      const series = 'throttled_requests_total{route="/login"}'
      assert.equal(sample(end, series), sample(start, series) + 1)
    })

    it('labels unknown paths with one route label, so scanners cannot grow the series', async () => {
      await h.client.request('GET', `/no-such-path-${Date.now()}`)
      const res = await h.client.request('GET', '/metrics')
      assert.ok(sample(res.text, 'http_requests_total{method="GET",route="(unmatched)",status_code="404"}') >= 1)
      assert.doesNotMatch(res.text, /no-such-path/)
    })

    it('METRICS_ENABLED=false removes /metrics and leaves the API alone', async () => {
      const off = await startHarness(mode, { config: { metrics: { ...defaultConfig.metrics, enabled: false } } })
      try {
        const res = await off.client.request('GET', '/metrics')
        assert.equal(res.status, 404)
        assert.deepEqual(res.json, { error: true, message: 'Route GET /metrics not found' })
        assert.equal((await off.client.request('GET', '/healthz')).status, 200)
        const doc = (await off.client.request('GET', '/openapi.json')).json as OpenApi
        assert.equal(doc.paths['/metrics'], undefined)
      } finally {
        await off.close()
      }
    })
  })
}

describe('readiness with a store that hangs', () => {
  it('answers 503 once the ping has taken longer than the readiness timeout', async () => {
    const real = openSqliteStore({ dataDir: ':memory:' })
    const hanging: TestStore = { ...real, ping: () => new Promise<void>(() => {}) }
    const app = Fastify()
    healthRoutes(app, hanging, 50)
    try {
      const res = await app.inject({ method: 'GET', url: '/readyz' })
      assert.equal(res.statusCode, 503)
      assert.deepEqual(res.json(), { status: 'unavailable', message: 'The database does not answer' })
    } finally {
      await app.close()
      await real.close()
    }
  })
})

describe('metrics on a separate port (METRICS_PORT)', () => {
  let dataDir: string
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'notes-metrics-'))
  })
  after(() => rmSync(dataDir, { recursive: true, force: true }))

  it('serves /metrics only on its own listener', async () => {
    const server = await startServer({
      ...defaultConfig,
      port: 0,
      host: '127.0.0.1',
      dataDir,
      accessTokenSecret: TEST_SECRET,
      logLevel: 'silent',
      metrics: { enabled: true, port: 0, host: '127.0.0.1' },
    })
    try {
      assert.ok(server.metrics, 'a metrics listener was started')
      const api = server.app.listeningOrigin
      assert.equal((await fetch(`${api}/healthz`)).status, 200)
      const onApi = await fetch(`${api}/metrics`)
      assert.equal(onApi.status, 404)
      await onApi.text()
      const res = await fetch(`${server.metrics.url}/metrics`)
      assert.equal(res.status, 200)
      assert.match(await res.text(), /^http_requests_total\{method="GET",route="\/healthz",status_code="200"\} 1$/m)
      const other = await fetch(`${server.metrics.url}/healthz`)
      assert.equal(other.status, 404)
      await other.text()
    } finally {
      await server.close()
    }
  })
})

describe('metrics configuration', () => {
  it('defaults to /metrics on the API port', () => {
    assert.deepEqual(parseConfig({}).metrics, { enabled: true, port: undefined, host: '0.0.0.0' })
  })

  it('reads METRICS_ENABLED, METRICS_PORT and METRICS_HOST', () => {
    assert.deepEqual(
      parseConfig({ METRICS_ENABLED: 'false', METRICS_PORT: '9464', METRICS_HOST: '127.0.0.1' }).metrics,
      {
        enabled: false,
        port: 9464,
        host: '127.0.0.1',
      },
    )
    assert.equal(parseConfig({ HOST: '10.0.0.5', METRICS_PORT: '9464' }).metrics.host, '10.0.0.5')
  })

  it('refuses a bad METRICS_PORT or METRICS_ENABLED, naming the variable', () => {
    for (const env of [
      { METRICS_PORT: 'x' },
      { METRICS_PORT: '0' },
      { METRICS_PORT: '8000' },
      { PORT: '9000', METRICS_PORT: '9000' },
      { METRICS_ENABLED: 'maybe' },
    ]) {
      assert.throws(
        () => parseConfig(env),
        (err: unknown) => err instanceof ConfigError && err.variable === Object.keys(env).at(-1),
        JSON.stringify(env),
      )
    }
  })
})

describe('the response check of the test harness', () => {
  const doc = {
    paths: {
      '/things/{id}': {
        get: {
          responses: {
            '200': {
              content: {
                'application/json': {
                  schema: { type: 'object', required: ['ok'], properties: { ok: { const: true } } },
                },
              },
            },
            '401': { content: { 'text/plain': { schema: { type: 'string', enum: ['Unauthorized'] } } } },
          },
        },
      },
    },
  }
  const check = responseChecker(doc)
  const json = (status: number, body: unknown) => ({
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    text: JSON.stringify(body),
    json: body,
  })

  it('accepts a response that matches the document', () => {
    check('GET', '/things/1?x=1', json(200, { ok: true }))
    check('GET', '/things/1', {
      status: 401,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      text: 'Unauthorized',
      json: undefined,
    })
  })

  it('rejects an undocumented status, a wrong body and an undocumented content type', () => {
    assert.throws(() => check('GET', '/things/1', json(404, { ok: true })), /not documented/)
    assert.throws(() => check('GET', '/things/1', json(200, { ok: false })), /does not match/)
    assert.throws(
      () => check('GET', '/things/1', json(401, 'Unauthorized')),
      /content type "application\/json" is not documented/,
    )
  })
})
