// Renders /docs (Swagger UI, bundled with the web app: src/plugins/web-app.ts) in headless
// Chromium (Debian's `chromium`, installed by .ci/run) from the built service, as `npm start`
// runs it, with every request to a host other than loopback blocked and recorded: the page must
// show every endpoint from /openapi.json, must need nothing from another host, must break no CSP
// rule, and its "Try it out" must call this service.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { launchChromium, openPage } from '../support/browser.js'
import { CONTRACT_OPERATIONS } from '../support/contract-operations.js'
import { type WebServer, startWebServer } from '../support/web.js'

describe('GET /docs in a browser', () => {
  let server: WebServer
  let browser: Browser
  let base: string
  before(async () => {
    server = await startWebServer('sqlite')
    base = server.base
    browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
    await server?.close()
  })

  it('shows every endpoint, loading nothing from another host, and tries one out', async () => {
    const { context, page, record } = await openPage(browser, { viewport: { width: 1280, height: 900 } })
    try {
      const response = await page.goto(`${base}/docs`, { waitUntil: 'load' })
      assert.equal(response?.status(), 200)
      await page.locator('.opblock').first().waitFor()
      assert.equal(await page.title(), 'notes-service API reference')
      const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, unknown>>
      }
      for (const [method, path] of CONTRACT_OPERATIONS) {
        const block = page.locator(`.opblock-${method}`, {
          has: page.locator(`.opblock-summary-path[data-path="${path}"]`),
        })
        assert.equal(await block.count(), 1, `${method.toUpperCase()} ${path}`)
      }
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const method of Object.keys(item)) {
          assert.equal(
            await page.locator(`.opblock-${method} .opblock-summary-path[data-path="${path}"]`).count(),
            1,
            `${method} ${path} is on the page`,
          )
        }
      }

      // Try it out: GET /healthz from the page, answered by this service.
      const healthz = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path[data-path="/healthz"]') })
      await healthz.locator('.opblock-summary').click()
      await healthz.getByRole('button', { name: 'Try it out' }).click()
      const answered = page.waitForResponse((r) => r.url() === `${base}/healthz`)
      await healthz.getByRole('button', { name: 'Execute' }).click()
      assert.equal((await answered).status(), 200)
      await healthz.locator('.live-responses-table .response-col_status', { hasText: '200' }).waitFor()
      assert.match(await healthz.locator('.live-responses-table .microlight').first().innerText(), /"status": "ok"/)

      assert.deepEqual(record.outside, [], 'no request left loopback')
      assert.deepEqual(record.failed, [], 'no request failed')
      assert.deepEqual(record.cspViolations, [], 'no CSP violation')
      assert.deepEqual(record.errors, [], 'no uncaught error')
      if (process.env.DOCS_SCREENSHOT) await page.screenshot({ path: process.env.DOCS_SCREENSHOT, fullPage: false })
    } finally {
      await context.close()
    }
  })
})
