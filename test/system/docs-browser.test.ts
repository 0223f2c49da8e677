// Renders /docs in headless Chromium (Debian's `chromium`, installed by .ci/run) through a real
// listening server, with every request to a host other than loopback blocked and recorded: the
// page must show every endpoint and must not need anything from another host.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { type Browser, chromium } from 'playwright-core'
import { CONTRACT_OPERATIONS } from '../support/contract-operations.js'
import { type Harness, startHarness } from '../support/harness.js'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

const isLoopback = (url: URL) => ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)

describe('GET /docs in a browser', () => {
  let h: Harness
  let browser: Browser
  let base: string
  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium (.ci/run does), or set CHROMIUM_PATH`)
    h = await startHarness('http')
    base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  })
  after(async () => {
    await browser?.close()
    await h?.close()
  })

  it('shows every endpoint, loading nothing from another host', async () => {
    const page = await browser.newPage()
    const outside: string[] = []
    await page.route('**/*', async (route) => {
      const url = new URL(route.request().url())
      if (url.protocol === 'data:' || isLoopback(url)) return route.continue()
      outside.push(url.href)
      return route.abort('blockedbyclient')
    })
    const failed: string[] = []
    page.on('requestfailed', (request) => failed.push(request.url()))

    const response = await page.goto(`${base}/docs`, { waitUntil: 'load' })
    assert.equal(response?.status(), 200)
    const text = await page.locator('body').innerText()
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> }
    for (const [method, path] of CONTRACT_OPERATIONS) {
      assert.ok(text.includes(path), `${path} is on the page`)
      assert.ok(await page.locator(`section:has(code:text-is("${path}")) .method:text-is("${method.toUpperCase()}")`).count(), `${method} ${path}`)
    }
    for (const path of Object.keys(doc.paths)) assert.ok(text.includes(path), `${path} is on the page`)
    assert.equal(await page.title(), 'notes-service API reference')
    assert.deepEqual(outside, [], 'no request left loopback')
    assert.deepEqual(failed, [], 'no request failed')
    if (process.env.DOCS_SCREENSHOT) await page.screenshot({ path: process.env.DOCS_SCREENSHOT, fullPage: false })
    await page.close()
  })
})
