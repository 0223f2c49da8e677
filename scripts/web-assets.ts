// Build-time helpers for the web app's output (dist/web): precompressing every text asset with
// brotli and gzip, so the service sends the smaller file without compressing per request
// (@fastify/static's preCompressed option), and measuring the initial download of a page: the
// JS and CSS its HTML loads before anything runs, gzip-compressed. vite.config.ts uses both after
// each build; test/system/web-serving.test.ts holds the result to the budget.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'

/**
 * The largest initial download of JS + CSS, gzip-compressed, that the app may need: 120 KB, and
 * 1 KB more for what the notes page needs to start its sync code (docs/performance.md, "The web
 * app live and offline").
 */
export const INITIAL_GZIP_BUDGET_BYTES = 120 * 1024

const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map|webmanifest)$/

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
}

export function gzipSize(bytes: Buffer): number {
  return gzipSync(bytes, { level: 9 }).length
}

/**
 * Writes `<file>.br` and `<file>.gz` beside each compressible file, except where compressing
 * would not save anything (tiny files). Returns how many files were compressed.
 */
export function precompress(outDir: string): number {
  let count = 0
  for (const path of filesUnder(outDir)) {
    if (!COMPRESSIBLE.test(path)) continue
    const bytes = readFileSync(path)
    const gz = gzipSync(bytes, { level: 9 })
    if (gz.length >= bytes.length) continue
    // Quality 11 takes seconds on Swagger UI's 1.5 MB bundle (the /docs page only); 9 there.
    const quality = bytes.length > 512 * 1024 ? 9 : 11
    const br = brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    })
    writeFileSync(`${path}.gz`, gz)
    writeFileSync(`${path}.br`, br)
    count++
  }
  return count
}

export interface InitialAsset {
  /** The URL path the HTML names, e.g. /assets/index-abc123.js. */
  path: string
  bytes: number
  gzipBytes: number
}

/**
 * The scripts, module preloads and stylesheets an HTML page of the build loads at once (what a
 * browser fetches before the page can run), with their gzip sizes.
 */
export function initialAssets(outDir: string, htmlFile = 'index.html'): InitialAsset[] {
  const html = readFileSync(join(outDir, htmlFile), 'utf8')
  const urls = new Set<string>()
  for (const tag of html.match(/<(script|link)\b[^>]*>/g) ?? []) {
    const isScript = tag.startsWith('<script')
    const rel = /\brel="([^"]+)"/.exec(tag)?.[1] ?? ''
    if (!isScript && !['stylesheet', 'modulepreload'].includes(rel)) continue
    const url = (isScript ? /\bsrc="([^"]+)"/ : /\bhref="([^"]+)"/).exec(tag)?.[1]
    if (url?.startsWith('/')) urls.add(url)
  }
  return [...urls].map((path) => {
    const bytes = readFileSync(join(outDir, path))
    return { path, bytes: bytes.length, gzipBytes: gzipSize(bytes) }
  })
}

/** One line per asset and a total against the budget, as the build prints it. */
export function describeInitialDownload(outDir: string): { text: string; totalGzip: number } {
  const assets = initialAssets(outDir)
  const totalGzip = assets.reduce((sum, a) => sum + a.gzipBytes, 0)
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
  const lines = assets.map(
    (a) => `  ${relative('/', a.path).padEnd(40)} ${kb(a.bytes).padStart(10)}  gzip ${kb(a.gzipBytes).padStart(9)}`,
  )
  lines.push(`  initial JS + CSS, gzip: ${kb(totalGzip)} of a ${kb(INITIAL_GZIP_BUDGET_BYTES)} budget`)
  return { text: lines.join('\n'), totalGzip }
}
