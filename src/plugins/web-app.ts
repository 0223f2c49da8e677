// Serves the web app and the API reference on the service's own origin, from the build in
// dist/web (`npm run build`, run by `npm start`; vite.config.ts): the app's HTML at its own
// pages, the API reference (Swagger UI) at /docs, and the hashed assets they load. None of these
// paths is one of the contract's, and an unknown path still gets the API's 404 JSON
// (docs/contract.md, "Errors"): the app is served only at the paths listed here, never as a
// catch-all.
//
// Every answer of this plugin carries the headers a browser enforces (CSP, nosniff, Referrer-Policy,
// frame-ancestors 'none'); the API's JSON is left as the contract has it. Files are sent from
// their brotli or gzip copies made at build time, hashed assets (@fastify/static's preCompressed)
// with a year of immutable caching, HTML with no-cache (revalidated with its ETag on every load).
// The two HTML pages are read once at start-up and sent from memory: they start every visit, and
// reading them from disk each time is slow on a busy machine (docs/web-app.md, "How it is served").
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import negotiate from '@fastify/accept-negotiator'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

/** The app's pages (client-side routes), each answered with the app's HTML. */
export const APP_PAGES = ['/', '/sign-in', '/sign-up', '/account'] as const

/** The API reference page, built from web/docs/index.html. */
export const DOCS_PAGE = '/docs'

/**
 * The app's policy: scripts, styles, images and fetches from this origin only, no inline script
 * or style, no plugin, no frame, no form submission (forms are sent by script), and Trusted Types:
 * HTML can be written into the page only through DOMPurify's policy (web/src/markdown.ts).
 * https://www.w3.org/TR/CSP3/ , https://w3c.github.io/trusted-types/dist/spec/
 */
export const APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  'trusted-types dompurify',
].join('; ')

/**
 * Swagger UI's policy: the same, without Trusted Types (it writes the document's Markdown
 * descriptions as HTML strings, sanitised by its own bundled DOMPurify).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const IMMUTABLE = 'public, max-age=31536000, immutable'
const REVALIDATE = 'no-cache'

/** The project's root: the nearest directory above this module with a package.json. */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error('web app: package.json not found above src/plugins')
    dir = parent
  }
  return dir
}

/** Where `npm run build` puts the web app, from the sources (tsx) or from dist/src alike. */
export function defaultWebRoot(): string {
  return join(projectRoot(), 'dist', 'web')
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Web app not built</title></head>
<body><h1>The web app is not built</h1>
<p>Run <code>npm run build</code> (<code>npm start</code> does it first), then start the service again.
The API answers as usual.</p></body></html>
`

/** An HTML page of the build, with the brotli and gzip copies made beside it. */
interface HtmlPage {
  identity: Buffer
  br: Buffer | undefined
  gzip: Buffer | undefined
  /** Weak: the three encodings are the same page (RFC 9110 §8.8.3). */
  etag: string
}

function readPage(file: string): HtmlPage {
  const identity = readFileSync(file)
  const copy = (suffix: string) => (existsSync(file + suffix) ? readFileSync(file + suffix) : undefined)
  const hash = createHash('sha256').update(identity).digest('base64url').slice(0, 22)
  return { identity, br: copy('.br'), gzip: copy('.gz'), etag: `W/"${hash}"` }
}

function sendPage(request: FastifyRequest, reply: FastifyReply, page: HtmlPage): FastifyReply {
  void reply.header('cache-control', REVALIDATE).header('vary', 'accept-encoding').header('etag', page.etag)
  const ifNoneMatch = request.headers['if-none-match']
  if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => ['*', page.etag].includes(tag.trim()))) return reply.code(304).send()
  void reply.type('text/html; charset=utf-8')
  const offered = (['br', 'gzip'] as const).filter((encoding) => page[encoding])
  const encoding = negotiate(request.headers['accept-encoding'] ?? '', offered)
  if (encoding === 'br' || encoding === 'gzip') return reply.header('content-encoding', encoding).send(page[encoding])
  return reply.send(page.identity)
}

function securityHeaders(reply: FastifyReply, csp: string): void {
  void reply.headers({
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
  })
}

/**
 * Registers the app's pages, /docs and the build's assets. `root` is the build (dist/web by
 * default). When it holds no build, as when the tests start the app from the sources, the pages
 * answer 503 with a page saying how to build it, and a warning is logged once.
 */
export async function registerWebApp(app: FastifyInstance, root = defaultWebRoot()): Promise<void> {
  const built = existsSync(join(root, 'index.html')) && existsSync(join(root, 'docs', 'index.html'))
  await app.register(async (web) => {
    web.addHook('onSend', async (request, reply) => {
      securityHeaders(reply, request.routeOptions.url === DOCS_PAGE ? DOCS_CSP : APP_CSP)
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
      // One route per file of the build, found at start-up, instead of a catch-all: any other
      // path is the API's 404. HTML is sent by the page routes below; the .br/.gz copies are
      // chosen by preCompressed, never addressed themselves.
      wildcard: false,
      globIgnore: ['**/*.html', '**/*.br', '**/*.gz'],
      index: false,
      decorateReply: false,
      preCompressed: true,
      cacheControl: false,
      setHeaders(res, path) {
        res.setHeader('cache-control', path.includes(`${join(root, 'assets')}/`) ? IMMUTABLE : REVALIDATE)
        res.setHeader('vary', 'accept-encoding')
      },
    })
    const appHtml = readPage(join(root, 'index.html'))
    const docsHtml = readPage(join(root, 'docs', 'index.html'))
    for (const page of APP_PAGES) web.get(page, { schema: { hide: true } }, async (request, reply) => sendPage(request, reply, appHtml))
    web.get(DOCS_PAGE, { schema: { hide: true } }, async (request, reply) => sendPage(request, reply, docsHtml))
  })
}
