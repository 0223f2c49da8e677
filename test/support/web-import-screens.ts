// The import and export screens of the web app (test/system/web-import-export.test.ts): the account
// page's "Import notes" before an import, while a file uploads, after an import that skipped items,
// and "Export all notes", light and dark, desktop and phone. axe-core finds no serious or critical
// violation and nothing is wider than the screen; with WEB_SCREENSHOTS=DIR each is saved as
// `import-<before|uploading|summary>-…png` and `export-<desktop|phone>-<light|dark>.png`.
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Locator, Page } from 'playwright-core'
import { openPage } from './browser.js'
import type { PageWindow } from './page-globals.js'
import { uploadThrottle } from './web-attachments.js'
import { PASSWORD, apiCall } from './web-flows.js'
import { VIEWPORTS, type ViewportName, type WebServer, seriousAxeViolations, startWebServer } from './web.js'

const SCREENSHOTS = process.env.WEB_SCREENSHOTS

/** A file that takes a few seconds to upload at the throttled rate, so its progress can be seen. */
export const SLOW_FILE = {
  name: 'notes-archive.zip',
  mimeType: 'application/zip',
  buffer: Buffer.alloc(400_000, 7),
}

/** Scrolls the section's heading to the top of the screen. */
async function scrollTo(section: Locator): Promise<void> {
  await section.evaluate((element) => {
    const e = element as unknown as { getBoundingClientRect(): { top: number } }
    const w = globalThis as unknown as { scrollTo(x: number, y: number): void; scrollY: number }
    w.scrollTo(0, e.getBoundingClientRect().top + w.scrollY - 72)
  })
}

async function check(page: Page, name: string): Promise<void> {
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
  await page.mouse.move(0, 0)
  if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) })
}

/**
 * The screens; `summaryFile` is a file the service imports with at least one item skipped, and
 * `skipped` the label of one of them.
 */
export function importScreens(
  browser: () => Browser,
  summaryFile: () => Promise<{ name: string; mimeType: string; buffer: Buffer }>,
  skipped: string,
): void {
  describe('the screens', () => {
    let server: WebServer

    before(async () => {
      server = await startWebServer('sqlite')
      if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true })
    })
    after(async () => {
      await server?.close()
    })

    for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        it(`import before, uploading and after, and export, ${viewport}, ${colorScheme}: no serious or critical axe violation, nothing wider than the screen`, async () => {
          const { context, page, record } = await openPage(browser(), {
            ...VIEWPORTS[viewport],
            deviceScaleFactor: 1,
            colorScheme,
            reducedMotion: 'reduce',
          })
          const suffix = `${viewport}-${colorScheme}`
          // An account of its own, so the file's notes are new to it on every screen.
          const created = await apiCall(server.base, '', 'POST', '/create-account', {
            fullName: 'Ada Lovelace',
            email: `ada-${suffix}@example.com`,
            password: PASSWORD,
          })
          const token = (created.json as { accessToken: string }).accessToken
          try {
            await page.addInitScript(
              (t) => (globalThis as unknown as PageWindow).localStorage.setItem('notes-service.token', t),
              token,
            )
            await page.goto(`${server.base}/account`)
            const importing = page.getByRole('region', { name: 'Import notes' })
            await scrollTo(importing)
            await check(page, `import-before-${suffix}`)

            const throttle = await uploadThrottle(page)
            await throttle(64 * 1024)
            const [chooser] = await Promise.all([
              page.waitForEvent('filechooser'),
              importing.getByRole('button', { name: 'Choose a file…' }).click(),
            ])
            await chooser.setFiles(SLOW_FILE)
            await page.waitForFunction(() => {
              const bar = (globalThis as unknown as PageWindow).document.querySelector('.import-progress progress') as {
                value: number
                max: number
              } | null
              return bar !== null && bar.value > 0 && bar.value < bar.max
            })
            await check(page, `import-uploading-${suffix}`)
            await throttle(-1)
            await importing.locator('.import-failed, .import-result').waitFor()

            const [again] = await Promise.all([
              page.waitForEvent('filechooser'),
              importing.getByRole('button', { name: 'Choose a file…' }).click(),
            ])
            await again.setFiles(await summaryFile())
            await importing.getByText(skipped).waitFor()
            // A phone shows the summary from its first line, the skipped items under it.
            await scrollTo(viewport === 'phone' ? importing.locator('.import-headline') : importing)
            await check(page, `import-summary-${suffix}`)

            const exporting = page.getByRole('region', { name: 'Export all notes' })
            await exporting.getByLabel('Include the trash and each note’s history').check()
            await scrollTo(exporting)
            await check(page, `export-${suffix}`)
            assert.deepEqual([...record.outside, ...record.cspViolations, ...record.errors], [])
          } finally {
            await context.close()
          }
        })
      }
    }
  })
}
