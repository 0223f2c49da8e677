// Serves the web app and the API reference (Swagger UI at /docs) from the build in dist/web, at
// the paths listed here only, never as a catch-all: an unknown path still gets the API's 404 JSON
// (docs/web-app.md, "How it is served"). Only this plugin's answers carry the browser's security headers.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import negotiate from '@fastify/accept-negotiator'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

export const APP_PAGES = ['/', '/sign-in', '/sign-up', '/account', '/trash'] as const

export const DOCS_PAGE = '/docs'

const SAME_ORIGIN = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
]
const NO_BASE_FORM_OR_FRAME = ["base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"]

/**
 * Trusted Types: HTML enters the page only through DOMPurify's policy (web/src/markdown.ts), and a
 * worker's script URL only through the policy that allows the app's own service worker
 * (web/src/pwa/ServiceWorker.tsx).
 */
export const APP_CSP = [
  // Pictures attached to notes are fetched with the token (never in a URL) and shown from blob: URLs the app makes.
  ...SAME_ORIGIN.map((directive) => (directive.startsWith('img-src') ? `${directive} blob:` : directive)),
  "manifest-src 'self'",
  "worker-src 'self'",
  ...NO_BASE_FORM_OR_FRAME,
  "require-trusted-types-for 'script'",
  'trusted-types dompurify service-worker',
].join('; ')

/** Without Trusted Types: Swagger UI writes HTML strings, sanitised by its own DOMPurify. */
export const DOCS_CSP = [...SAME_ORIGIN, ...NO_BASE_FORM_OR_FRAME].join('; ')

const IMMUTABLE = 'public, max-age=31536000, immutable'
const REVALIDATE = 'no-cache'
/**
 * The service worker's script is kept by no HTTP cache (a proxy's included): the browser compares
 * it byte for byte to find a new build, and a stale copy would keep an old build's worker.
 */
const NEVER_STORED = 'no-store'

/** The service worker's script (scripts/service-worker-options.ts), at the root so its scope is the whole app. */
export const SERVICE_WORKER_PATH = '/sw.js'
export const MANIFEST_PATH = '/manifest.webmanifest'

/** Where `npm run build` puts the web app, found from the sources (tsx) or from dist/src alike. */
function defaultWebRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error('web app: package.json not found above src/plugins')
    dir = parent
  }
  return join(dir, 'dist', 'web')
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Web app not built</title></head>
<body><h1>The web app is not built</h1>
<p>Run <code>npm run build</code> (<code>npm start</code> does it first), then start the service again.
The API answers as usual.</p></body></html>
`

/** An HTML page of the build, kept in memory with its brotli and gzip copies: it starts every visit. */
function readPage(file: string) {
  const identity = readFileSync(file)
  const copy = (suffix: string) => (existsSync(file + suffix) ? readFileSync(file + suffix) : undefined)
  const hash = createHash('sha256').update(identity).digest('base64url').slice(0, 22)
  // Weak: the three encodings are the same page (RFC 9110 §8.8.3).
  return { identity, br: copy('.br'), gzip: copy('.gz'), etag: `W/"${hash}"` }
}

function sendPage(request: FastifyRequest, reply: FastifyReply, page: ReturnType<typeof readPage>): FastifyReply {
  void reply.header('cache-control', REVALIDATE).header('vary', 'accept-encoding').header('etag', page.etag)
  const ifNoneMatch = request.headers['if-none-match']
  if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => ['*', page.etag].includes(tag.trim())))
    return reply.code(304).send()
  void reply.type('text/html; charset=utf-8')
  const offered = (['br', 'gzip'] as const).filter((encoding) => page[encoding])
  const encoding = negotiate(request.headers['accept-encoding'] ?? '', offered)
  if (encoding === 'br' || encoding === 'gzip') return reply.header('content-encoding', encoding).send(page[encoding])
  return reply.send(page.identity)
}

/** The worker's script, as sent: itself or its .br/.gz copy. */
const isServiceWorker = (root: string, path: string) => /^sw\.js(\.br|\.gz)?$/.test(relative(root, path))

/** Without a build (tests run from the sources) the pages answer 503. */
export async function registerWebApp(app: FastifyInstance, root = defaultWebRoot()): Promise<void> {
  const built = existsSync(join(root, 'index.html')) && existsSync(join(root, 'docs', 'index.html'))
  await app.register(async (web) => {
    web.addHook('onSend', async (request, reply) => {
      void reply.headers({
        'content-security-policy': request.routeOptions.url === DOCS_PAGE ? DOCS_CSP : APP_CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'x-frame-options': 'DENY',
        'cross-origin-opener-policy': 'same-origin',
      })
    })
    if (!built) {
      app.log.warn({ root }, 'the web app is not built (run npm run build): its pages answer 503')
      for (const page of [...APP_PAGES, DOCS_PAGE]) {
        web.get(page, { schema: { hide: true } }, async (_request, reply) =>
          reply.code(503).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(NOT_BUILT),
        )
      }
      return
    }
    await web.register(fastifyStatic, {
      root,
      prefix: '/',
      // One route per file of the build: any other path is the API's 404. HTML is sent by the
      // page routes below; preCompressed picks the .br/.gz copies, never addressed themselves.
      wildcard: false,
      globIgnore: ['**/*.html', '**/*.br', '**/*.gz'],
      index: false,
      decorateReply: false,
      preCompressed: true,
      cacheControl: false,
      setHeaders(res, path) {
        const cacheControl = path.includes(`${join(root, 'assets')}/`)
          ? IMMUTABLE
          : isServiceWorker(root, path)
            ? NEVER_STORED
            : REVALIDATE
        res.setHeader('cache-control', cacheControl)
        res.setHeader('vary', 'accept-encoding')
      },
    })
    const appHtml = readPage(join(root, 'index.html'))
    const docsHtml = readPage(join(root, 'docs', 'index.html'))
    for (const page of APP_PAGES)
      web.get(page, { schema: { hide: true } }, async (request, reply) => sendPage(request, reply, appHtml))
    web.get(DOCS_PAGE, { schema: { hide: true } }, async (request, reply) => sendPage(request, reply, docsHtml))
  })
}
