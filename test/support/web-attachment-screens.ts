// The attachment screens of the web app (test/system/web-attachments.test.ts): a note with two
// pictures and a PDF among others (one linking to a file that is not there), the same note in the
// editor's preview, and the account's files, light and dark, desktop and phone. axe-core finds no
// serious or critical violation and nothing is wider than the screen; with WEB_SCREENSHOTS=DIR each
// is saved as `attachments-<notes|preview|account>-<desktop|phone>-<light|dark>.png`.
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { openPage } from './browser.js'
import type { PageWindow } from './page-globals.js'
import { PDF, landscape, showsPictures, uploadThroughApi } from './web-attachments.js'
import { PASSWORD, apiCall } from './web-flows.js'
import { VIEWPORTS, type ViewportName, type WebServer, seriousAxeViolations, startWebServer } from './web.js'

const SCREENSHOTS = process.env.WEB_SCREENSHOTS

async function check(page: Page, name: string, viewport: ViewportName, colorScheme: string): Promise<void> {
  const violations = await seriousAxeViolations(page)
  assert.deepEqual(violations, [], `${name}: ${JSON.stringify(violations, null, 2)}`)
  const overflow = await page.evaluate(() => {
    const { documentElement } = (
      globalThis as unknown as PageWindow & {
        document: { documentElement: { scrollWidth: number; clientWidth: number } }
      }
    ).document
    return documentElement.scrollWidth - documentElement.clientWidth
  })
  assert.equal(overflow, 0, `${name}: no horizontal scrolling`)
  // No pointer left hovering over what the last step clicked.
  await page.mouse.move(0, 0)
  if (SCREENSHOTS)
    await page.screenshot({ path: join(SCREENSHOTS, `attachments-${name}-${viewport}-${colorScheme}.png`) })
}

export function attachmentScreens(browser: () => Browser): void {
  describe('the screens', () => {
    let server: WebServer
    let token: string

    before(async () => {
      server = await startWebServer('sqlite')
      const created = await apiCall(server.base, '', 'POST', '/create-account', {
        fullName: 'Ada Lovelace',
        email: 'ada@example.com',
        password: PASSWORD,
      })
      token = (created.json as { accessToken: string }).accessToken
      const upload = (name: string, type: string, bytes: Buffer) =>
        uploadThroughApi(server.base, token, name, type, bytes)
      const ridge = await upload('ridge-at-dawn.png', 'image/png', await landscape('#3b3f7a', '#2d2a4a'))
      const lake = await upload('lake.png', 'image/png', await landscape('#6fb3e0', '#3f7a55'))
      // A route of some 180 KB, as a PDF of a few pages would be.
      const route = await upload(
        'route and times.pdf',
        'application/pdf',
        Buffer.concat([PDF, Buffer.alloc(180_000, 32)]),
      )
      const add = (title: string, content: string, tags: string[]) =>
        apiCall(server.base, token, 'POST', '/add-note', { title, content, tags })
      await add('Old scan', 'The receipt: ![receipt](/attachments/0123456789abcdef01234567/receipt.png)', [])
      await add('Weekly groceries', '- oat milk\n- eggs\n- **coffee beans**\n- lemons, basil', ['home'])
      const walk = await add(
        'Ridge walk',
        `[route and times.pdf](/attachments/${route._id}/route%20and%20times.pdf)\n![Ridge at dawn](${ridge.url})\n![The lake](${lake.url})\nSeven hours with the breaks; the lake is cold in May.`,
        ['travel'],
      )
      const walkNote = (walk.json as { note: { _id: string; updatedOn: string } }).note
      await apiCall(
        server.base,
        token,
        'PUT',
        `/update-note-pinned/${walkNote._id}`,
        { isPinned: true },
        {
          'if-match': `"${walkNote.updatedOn}"`,
        },
      )
      if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true })
    })
    after(async () => {
      await server?.close()
    })

    for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        it(`a note with two pictures and a PDF, in its card and the preview, and the account’s files, ${viewport}, ${colorScheme}: no serious or critical axe violation, nothing wider than the screen`, async () => {
          const { context, page, record } = await openPage(browser(), {
            ...VIEWPORTS[viewport],
            deviceScaleFactor: 1,
            colorScheme,
            reducedMotion: 'reduce',
          })
          try {
            await page.addInitScript(
              (t) => (globalThis as unknown as PageWindow).localStorage.setItem('notes-service.token', t),
              token,
            )
            await page.goto(server.base)
            const walk = page.locator('article.note', { has: page.getByRole('heading', { name: 'Ridge walk' }) })
            await showsPictures(walk, 2)
            await page.locator('.attachment-chip.missing').waitFor()
            await walk.getByRole('button', { name: /route and times\.pdf/ }).waitFor()
            await check(page, 'notes', viewport, colorScheme)

            await walk.getByRole('button', { name: 'Ridge walk', exact: true }).click()
            const editor = page.getByRole('dialog', { name: 'Edit note' })
            await editor.getByRole('button', { name: 'Preview' }).click()
            await showsPictures(editor.locator('.preview'), 2)
            await check(page, 'preview', viewport, colorScheme)
            await page.keyboard.press('Escape')
            await editor.waitFor({ state: 'detached' })

            await page.goto(`${server.base}/account`)
            const files = page.getByRole('list', { name: 'Files' })
            await files.locator('img.file-thumb').nth(1).waitFor()
            await page.getByRole('heading', { name: 'Files' }).evaluate((heading) => {
              const h = heading as unknown as { getBoundingClientRect(): { top: number } }
              const w = globalThis as unknown as { scrollTo(x: number, y: number): void; scrollY: number }
              w.scrollTo(0, h.getBoundingClientRect().top + w.scrollY - 96)
            })
            await check(page, 'account', viewport, colorScheme)
            assert.deepEqual([...record.outside, ...record.cspViolations, ...record.errors], [])
          } finally {
            await context.close()
          }
        })
      }
    }
  })
}
