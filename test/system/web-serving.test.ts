// How the service serves the web app (src/plugins/web-app.ts), over real sockets to the built
// service as `npm start` runs it: the pages and /docs with their security headers, assets with
// long immutable caching and precompressed bodies, HTML revalidated; every contract path answers
// every method exactly as an app without the web build does (never the app's HTML), unknown paths
// keep the API's 404 JSON, the service worker is never kept by an HTTP cache, and the app is there
// on PostgreSQL and with --workers too. Also the initial download's budget, and what the service
// answers when the app was never built.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { INITIAL_GZIP_BUDGET_BYTES, describeInitialDownload, initialAssets } from '../../scripts/web-assets.js'
import { buildApp } from '../../src/app.js'
import { APP_CSP, APP_PAGES, DOCS_CSP, MANIFEST_PATH, SERVICE_WORKER_PATH } from '../../src/plugins/web-app.js'
import { openSqliteStore } from '../../src/store/sqlite/index.js'
import type { Store } from '../../src/store/types.js'
import { TEST_SECRET, testConfig } from '../support/harness.js'
import { SERVICE_LIMITS, storeKinds } from '../support/stores.js'
import { WEB_ROOT, type WebServer, ensureBuilt, startWebServer } from '../support/web.js'

interface Answer {
  status: number
  headers: { get(name: string): string | null }
  body: Buffer
}

/**
 * One request over node:http, which sends only the headers given and hands back the bytes as
 * sent (fetch would add Cache-Control to a conditional request and decode compressed bodies).
 */
function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const raw = res.headers
        resolve({
          status: res.statusCode ?? 0,
          headers: { get: (name) => (raw[name.toLowerCase()] === undefined ? null : String(raw[name.toLowerCase()])) },
          body: Buffer.concat(chunks),
        })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

function assertBrowserHeaders(answer: Answer, csp: string, what: string): void {
  assert.equal(answer.headers.get('content-security-policy'), csp, `${what}: CSP`)
  assert.equal(answer.headers.get('x-content-type-options'), 'nosniff', `${what}: nosniff`)
  assert.equal(answer.headers.get('referrer-policy'), 'no-referrer', `${what}: Referrer-Policy`)
  assert.match(csp, /frame-ancestors 'none'/)
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/)
}

const html = () => readFileSync(join(WEB_ROOT, 'index.html'))

describe('the web app as the service serves it', () => {
  let server: WebServer
  before(async () => {
    server = await startWebServer('sqlite')
  })
  after(async () => {
    await server?.close()
  })

  it("serves the app's HTML at each of its pages, with the browser's security headers and no-cache", async () => {
    for (const page of [...APP_PAGES, '/sign-in/', '/?q=x']) {
      const answer = await get(server.base + page)
      assert.equal(answer.status, 200, page)
      assert.equal(answer.headers.get('content-type'), 'text/html; charset=utf-8', page)
      assert.equal(answer.headers.get('cache-control'), 'no-cache', page)
      assert.deepEqual(answer.body, html(), page)
      assertBrowserHeaders(answer, APP_CSP, page)
    }
    const head = await get(`${server.base}/`, {}, 'HEAD')
    assert.equal(head.status, 200)
    assert.equal(head.body.length, 0)
    // Revalidation: the same ETag answers 304.
    const first = await get(`${server.base}/`)
    const etag = first.headers.get('etag')
    assert.ok(etag)
    assert.equal((await get(`${server.base}/`, { 'if-none-match': etag })).status, 304)
  })

  it('serves /docs (Swagger UI) with its own CSP', async () => {
    const answer = await get(`${server.base}/docs`)
    assert.equal(answer.status, 200)
    assert.match(answer.body.toString(), /<title>notes-service API reference<\/title>/)
    assertBrowserHeaders(answer, DOCS_CSP, '/docs')
  })

  it('sends brotli or gzip as the client accepts them, and says that the answer varies', async () => {
    const assets = initialAssets(WEB_ROOT).map((a) => a.path)
    for (const path of ['/', ...assets]) {
      const plain = await get(server.base + path)
      const br = await get(server.base + path, { 'accept-encoding': 'gzip, deflate, br' })
      const gz = await get(server.base + path, { 'accept-encoding': 'gzip' })
      assert.equal(br.headers.get('content-encoding'), 'br', path)
      assert.equal(gz.headers.get('content-encoding'), 'gzip', path)
      assert.equal(plain.headers.get('content-encoding'), null, path)
      assert.deepEqual(brotliDecompressSync(br.body), plain.body, path)
      assert.deepEqual(gunzipSync(gz.body), plain.body, path)
      assert.ok(br.body.length < plain.body.length && gz.body.length < plain.body.length, path)
      for (const answer of [plain, br, gz]) assert.equal(answer.headers.get('vary'), 'accept-encoding', path)
      assert.equal(br.headers.get('content-type'), plain.headers.get('content-type'), path)
    }
  })

  it('caches hashed assets for a year, immutable, with the right types', async () => {
    const assets = initialAssets(WEB_ROOT)
    assert.ok(assets.some((a) => a.path.endsWith('.js')) && assets.some((a) => a.path.endsWith('.css')))
    for (const { path } of assets) {
      assert.match(path, /^\/assets\/[\w-]+-[\w-]{8}\.(js|css)$/, 'the name carries a content hash')
      const answer = await get(server.base + path)
      assert.equal(answer.status, 200, path)
      assert.equal(answer.headers.get('cache-control'), 'public, max-age=31536000, immutable', path)
      assert.equal(
        answer.headers.get('content-type'),
        path.endsWith('.js') ? 'application/javascript; charset=utf-8' : 'text/css; charset=utf-8',
        path,
      )
      assert.equal(answer.headers.get('x-content-type-options'), 'nosniff', path)
    }
  })

  it('serves the service worker uncached by any HTTP cache, and the manifest and icons revalidated, with their types', async () => {
    const worker = readFileSync(join(WEB_ROOT, 'sw.js'))
    for (const encoding of ['', 'gzip', 'br']) {
      const answer = await get(`${server.base}${SERVICE_WORKER_PATH}`, encoding ? { 'accept-encoding': encoding } : {})
      assert.equal(answer.status, 200, encoding)
      assert.equal(answer.headers.get('content-type'), 'application/javascript; charset=utf-8', encoding)
      assert.equal(answer.headers.get('cache-control'), 'no-store', encoding)
      assert.equal(answer.headers.get('content-encoding'), encoding || null)
      const body =
        encoding === 'br'
          ? brotliDecompressSync(answer.body)
          : encoding === 'gzip'
            ? gunzipSync(answer.body)
            : answer.body
      assert.deepEqual(body, worker, encoding)
      // The worker runs under the app's CSP: no importScripts of a plain string under Trusted Types.
      assertBrowserHeaders(answer, APP_CSP, SERVICE_WORKER_PATH)
    }
    assert.doesNotMatch(worker.toString(), /importScripts\(/, 'the Workbox runtime is inlined')
    assert.match(APP_CSP, /worker-src 'self'/)
    assert.match(APP_CSP, /manifest-src 'self'/)
    assert.match(APP_CSP, /trusted-types dompurify service-worker(;|$)/)

    const manifest = await get(`${server.base}${MANIFEST_PATH}`)
    assert.equal(manifest.status, 200)
    assert.equal(manifest.headers.get('content-type'), 'application/manifest+json')
    assert.equal(manifest.headers.get('cache-control'), 'no-cache')
    const icons = (JSON.parse(manifest.body.toString()) as { icons: Array<{ src: string; type: string }> }).icons
    for (const icon of icons) {
      const answer = await get(server.base + icon.src)
      assert.equal(answer.status, 200, icon.src)
      assert.equal(answer.headers.get('content-type')?.split(';')[0], icon.type, icon.src)
      assert.equal(answer.headers.get('cache-control'), 'no-cache', icon.src)
    }
    assert.match(html().toString(), /<link rel="manifest" href="\/manifest\.webmanifest" \/>/)
    // The API reference links no manifest: its CSP has no manifest-src.
    assert.doesNotMatch(readFileSync(join(WEB_ROOT, 'docs', 'index.html'), 'utf8'), /rel="manifest"/)
  })

  it("keeps the API's 404 JSON for every other path, browsers' navigations included", async () => {
    for (const path of [
      '/nope',
      '/index.html',
      '/assets',
      '/assets/',
      '/assets/nope.js',
      `${initialAssets(WEB_ROOT)[0]!.path}.br`,
      '/docs/index.html',
      '/sign-in/x',
    ]) {
      const answer = await get(server.base + path, {
        accept: 'text/html,application/xhtml+xml',
        'sec-fetch-mode': 'navigate',
      })
      assert.equal(answer.status, 404, path)
      assert.match(String(answer.headers.get('content-type')), /^application\/json/, path)
      assert.deepEqual(
        JSON.parse(answer.body.toString()),
        { error: true, message: `Route GET ${path} not found` },
        path,
      )
    }
  })

  it("leaves the API's JSON and 401 as the contract has them (no page headers)", async () => {
    const unauthorized = await get(`${server.base}/get-all-notes`, { accept: 'text/html' })
    assert.equal(unauthorized.status, 401)
    assert.equal(unauthorized.body.toString(), 'Unauthorized')
    assert.equal(unauthorized.headers.get('content-security-policy'), null)
    const health = await get(`${server.base}/healthz`)
    assert.equal(health.headers.get('content-security-policy'), null)
  })
})

describe('contract paths answer every method exactly as without the web app', () => {
  let server: WebServer
  let bare: FastifyInstance
  let bareStore: Store
  let bareBase: string
  before(async () => {
    server = await startWebServer('sqlite')
    bareStore = openSqliteStore({ dataDir: ':memory:', limits: SERVICE_LIMITS })
    bare = await buildApp({
      config: testConfig(),
      store: bareStore,
      secret: TEST_SECRET,
      webRoot: join(WEB_ROOT, 'absent'),
    })
    bareBase = await bare.listen({ port: 0, host: '127.0.0.1' })
  })
  after(async () => {
    await bare?.close()
    await bareStore?.close()
    await server?.close()
  })

  it('for GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS, as API clients and as browser navigations', async () => {
    const paths = [
      '/create-account',
      '/login',
      '/get-user',
      '/add-note',
      '/edit-note/0123456789abcdef01234567',
      '/delete-note/x',
      '/update-note-pinned/0123456789abcdef01234567',
      '/get-all-notes',
      '/search-notes?query=a',
      '/openapi.json',
      '/healthz',
    ]
    const kinds: Array<Record<string, string>> = [
      {},
      { accept: 'text/html,application/xhtml+xml', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' },
    ]
    for (const path of paths) {
      for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
        for (const headers of kinds) {
          const [withApp, without] = await Promise.all([
            get(server.base + path, headers, method),
            get(bareBase + path, headers, method),
          ])
          const what = `${method} ${path} ${JSON.stringify(headers)}`
          assert.equal(withApp.status, without.status, what)
          assert.equal(withApp.headers.get('content-type'), without.headers.get('content-type'), what)
          assert.doesNotMatch(String(withApp.headers.get('content-type')), /html/, what)
          assert.equal(withApp.headers.get('content-security-policy'), null, what)
          if (path !== '/openapi.json') assert.equal(withApp.body.toString(), without.body.toString(), what)
        }
      }
    }
  })
})

for (const storeKind of storeKinds()) {
  describe(`the app on ${storeKind} with --workers`, () => {
    let server: WebServer
    before(async () => {
      server = await startWebServer(storeKind, { WORKERS: '2' })
    })
    after(async () => {
      await server?.close()
    })

    it('serves the app from the workers of the cluster', async () => {
      for (let i = 0; i < 8; i++) {
        const page = await get(`${server.base}/sign-in`, { connection: 'close' })
        assert.equal(page.status, 200)
        assert.deepEqual(page.body, html())
        const asset = initialAssets(WEB_ROOT)[0]!.path
        assert.equal((await get(server.base + asset, { connection: 'close' })).status, 200)
      }
    })
  })
}

describe('the initial download', () => {
  before(() => ensureBuilt())

  it(`is at most ${INITIAL_GZIP_BUDGET_BYTES / 1024} KB of JS and CSS, gzip, and the build says how much`, () => {
    const assets = initialAssets(WEB_ROOT)
    const total = assets.reduce((sum, a) => sum + a.gzipBytes, 0)
    assert.ok(total <= INITIAL_GZIP_BUDGET_BYTES, `${(total / 1024).toFixed(1)} KB over the budget`)
    const { text, totalGzip } = describeInitialDownload(WEB_ROOT)
    assert.equal(totalGzip, total)
    assert.match(
      text,
      new RegExp(
        `initial JS \\+ CSS, gzip: ${(total / 1024).toFixed(1)} KB of a ${(INITIAL_GZIP_BUDGET_BYTES / 1024).toFixed(1).replace('.', '\\.')} KB budget`,
      ),
    )
    for (const asset of assets) assert.ok(text.includes(asset.path.slice(1)), asset.path)
  })
})

describe('an app built without the web app (tests, `npm run dev` before a build)', () => {
  it('answers its pages with 503 and a page that says how to build it; the API is untouched', async () => {
    const store = openSqliteStore({ dataDir: ':memory:', limits: SERVICE_LIMITS })
    const app = await buildApp({ config: testConfig(), store, secret: TEST_SECRET, webRoot: join(WEB_ROOT, 'absent') })
    try {
      for (const url of [...APP_PAGES, '/docs']) {
        const res = await app.inject({ url })
        assert.equal(res.statusCode, 503, url)
        assert.match(res.headers['content-type'] as string, /^text\/html/)
        assert.match(res.body, /The web app is not built[\s\S]*npm run build/)
        assert.equal(res.headers['x-content-type-options'], 'nosniff')
      }
      assert.equal((await app.inject({ url: '/assets/app.js' })).statusCode, 404)
      assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200)
    } finally {
      await app.close()
      await store.close()
    }
  })
})
