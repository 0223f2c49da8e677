// The web app's search results take in live changes, in Debian's Chromium against the real service, on SQLite and on
// PostgreSQL: with a search shown, a note that starts to match through a change made elsewhere (an edit, a new note)
// appears in the results, and one that stops matching leaves, without typing again. With WEB_SCREENSHOTS=DIR the
// results are saved after the live changes.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { type PageRecord, openPage } from '../support/browser.js'
import { uniqueEmail } from '../support/harness.js'
import { storeKinds } from '../support/stores.js'
import { VIEWPORTS, type WebServer, startWebServer } from '../support/web.js'
import { apiCall, assertClean, signUp, suiteChromium, tokenOf } from '../support/web-flows.js'

const SCREENSHOTS = process.env.WEB_SCREENSHOTS

const cardTitles = async (page: Page) => (await page.locator('article.note h3').allInnerTexts()).sort()
const card = (page: Page, title: string) =>
  page.locator('article.note', { has: page.getByRole('heading', { name: title, exact: true }) })

describe('the web app: search results under live changes', () => {
  const browser = suiteChromium()

  for (const storeKind of storeKinds()) {
    describe(`on ${storeKind}`, () => {
      let server: WebServer
      let page: Page
      let record: PageRecord
      let token: string

      const call = async (method: string, path: string, body?: unknown) => {
        const answer = await apiCall(server.base, token, method, path, body)
        assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.json)}`)
        return answer.json as { note: { _id: string } }
      }

      before(async () => {
        server = await startWebServer(storeKind)
        const opened = await openPage(browser(), { ...VIEWPORTS.desktop, colorScheme: 'light' })
        ;({ page, record } = opened)
        await signUp(page, server.base, 'Ada Lovelace', uniqueEmail(`web-live-search-${storeKind}`))
        token = (await tokenOf(page))!
      })
      after(async () => {
        await page?.context().close()
        await server?.close()
      })

      it('shows a note that starts to match through a change made elsewhere, and drops one that stops matching', async () => {
        await call('POST', '/add-note', { title: 'Groceries', content: 'milk', tags: [] })
        const garden = (await call('POST', '/add-note', { title: 'Garden', content: 'roses', tags: [] })).note
        await card(page, 'Garden').waitFor()

        await page.getByRole('searchbox', { name: 'Search notes' }).fill('tulip')
        await page.getByText('No notes match “tulip”').waitFor()

        // Elsewhere: an edit makes Garden match, a new note matches.
        await call('PUT', `/edit-note/${garden._id}`, { content: 'roses and tulips' })
        await card(page, 'Garden').waitFor()
        await call('POST', '/add-note', { title: 'Bulbs', content: 'Tulip bulbs, plant in autumn', tags: [] })
        await card(page, 'Bulbs').waitFor()
        assert.deepEqual(await cardTitles(page), ['Bulbs', 'Garden'])
        if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `live-search-${storeKind}.png`) })

        // And an edit that makes it stop matching takes it out; the other stays.
        await call('PUT', `/edit-note/${garden._id}`, { content: 'roses' })
        await card(page, 'Garden').waitFor({ state: 'detached' })
        assert.deepEqual(await cardTitles(page), ['Bulbs'])
        assert.equal(
          await page.getByRole('searchbox', { name: 'Search notes' }).inputValue(),
          'tulip',
          'the search stayed as typed',
        )
        assertClean(record)
      })
    })
  }
})
