// Headless Chromium for the browser tests (and bench/web-app.ts): Debian's `chromium`, installed by
// .ci/run, driven by playwright-core (which downloads no browser of its own), with every request to
// a host other than loopback blocked and recorded, so a page that needs the internet fails.
import { existsSync } from 'node:fs'
import { type Browser, type BrowserContext, type BrowserContextOptions, type Page, chromium } from 'playwright-core'
import type { PageWindow } from './page-globals.js'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does), or set CHROMIUM_PATH`)
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
}

export const isLoopback = (url: URL) => ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)

/** What a page did that a test wants to know about: requests that left loopback, CSP reports, errors. */
export interface PageRecord {
  outside: string[]
  failed: string[]
  cspViolations: string[]
  errors: string[]
}

/**
 * A page in a context of its own (its own storage, viewport and colour scheme) that blocks and
 * records any request to another host, and records CSP violations and uncaught errors.
 */
export async function openPage(
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page; record: PageRecord }> {
  const context = await browser.newContext(options)
  const record: PageRecord = { outside: [], failed: [], cspViolations: [], errors: [] }
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url())
    if (url.protocol === 'data:' || isLoopback(url)) return route.continue()
    record.outside.push(url.href)
    return route.abort('blockedbyclient')
  })
  await context.exposeBinding('__recordCspViolation', (_source, text: string) => {
    record.cspViolations.push(text)
  })
  await context.addInitScript(() => {
    const w = globalThis as unknown as PageWindow & { __recordCspViolation: (text: string) => Promise<void> }
    w.document.addEventListener('securitypolicyviolation', (event) => {
      void w.__recordCspViolation(
        `${String(event.violatedDirective)} blocked ${String(event.blockedURI) || 'inline'} (${String(event.sourceFile)}:${String(event.lineNumber)})`,
      )
    })
  })
  const page = await context.newPage()
  page.on('pageerror', (error) => record.errors.push(error.message))
  page.on('requestfailed', (request) => {
    // A fetch the app aborts itself (a search superseded by the next keystroke) is not a failure.
    if (request.failure()?.errorText !== 'net::ERR_ABORTED') record.failed.push(request.url())
  })
  return { context, page, record }
}
