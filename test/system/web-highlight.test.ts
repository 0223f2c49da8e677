// The search's matches marked in the note cards, in Debian's Chromium against the built service:
// the marks' text in titles, content and list excerpts; HTML in a note and in the pattern only
// ever text (no element made from it, nothing run); a pattern JavaScript cannot compile (RE2's
// own syntax), one matching the empty string next to an emoji, one shaped for backtracking and one
// marking every character, each leaving the page responsive; axe-core on the marked results,
// light and dark, desktop and phone. With WEB_SCREENSHOTS=DIR (`npm run screenshots` writes
// docs/screenshots/) the results are saved as search-highlight-<viewport>-<scheme>.png.
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { openPage } from '../support/browser.js'
import { uniqueEmail } from '../support/harness.js'
import type { PageWindow } from '../support/page-globals.js'
import { PASSWORD, apiCall, assertClean, suiteChromium } from '../support/web-flows.js'
import { VIEWPORTS, type ViewportName, type WebServer, seriousAxeViolations, startWebServer } from '../support/web.js'

const SCREENSHOTS = process.env.WEB_SCREENSHOTS

const IMG = '<img src=x onerror="window.__xss=1">'
const NOTES = [
  {
    title: 'Pasted from a <b>web page</b>',
    content: `The snippet ${IMG} and <script>window.__xss=2</script> stay text.\n\nAlso **bold** and a [link](https://example.org/b).`,
  },
  { title: 'Birthday list', content: 'Books for Sam, a box of figs, warm socks.' },
  { title: 'Shopping', content: 'Oat milk, eggs, coffee beans, basil.' },
  // Emoji (two UTF-16 units each) stay out of the screenshots: Debian's Chromium has no emoji font.
  { title: 'Long log', content: `Every character here matches a dot: 🎂 📚 xx 🧦 ${'abc '.repeat(100)}` },
]
/** The brief's pattern: in a regular expression `(1)` is a group, so it marks only the b's here. */
const HOSTILE_PATTERN = '<img src=x onerror=alert(1)>|b'

const card = (page: Page, title: string) =>
  page.locator('article.note', { has: page.getByRole('heading', { name: title, exact: true }) })
const marksOf = (page: Page, title: string) => card(page, title).locator('mark').allInnerTexts()

/** Types `text` in the search box and waits for the API's answer and the count of results it shows. */
async function search(page: Page, text: string, count: number): Promise<void> {
  const answered = page.waitForResponse((response) => new URL(response.url()).pathname === '/search-notes')
  await page.getByRole('searchbox', { name: 'Search notes' }).fill(text)
  await answered
  await page.getByText(new RegExp(`^${count} notes? match(es)?$`)).waitFor()
}

async function setRegex(page: Page, on: boolean): Promise<void> {
  const toggle = page.getByRole('button', { name: 'Regular expression' })
  if ((await toggle.getAttribute('aria-pressed')) !== String(on)) await toggle.click()
}

/** Elements in the results that are neither the app's own nor marks: what HTML in a note would make. */
function foreignElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const { document } = globalThis as unknown as PageWindow
    const text = ['.note-title', '.note-body', '.note-excerpt']
    const made = Array.from(
      document.querySelectorAll(
        text.flatMap((box) => ['img', 'script', 'b', 'iframe', 'svg'].map((tag) => `${box} ${tag}`)).join(', '),
      ),
    )
    const inMarks = Array.from(document.querySelectorAll('.note-grid mark *'))
    return [...made, ...inMarks].map((el) => `${el.tagName}: ${el.textContent ?? ''}`)
  })
}

describe('search matches marked in the note cards', () => {
  const browser = suiteChromium()
  let server: WebServer
  let token: string

  before(async () => {
    server = await startWebServer('sqlite')
    const created = await apiCall(server.base, '', 'POST', '/create-account', {
      fullName: 'Ada Lovelace',
      email: uniqueEmail('web-highlight'),
      password: PASSWORD,
    })
    assert.equal(created.status, 200, JSON.stringify(created.json))
    token = (created.json as { accessToken: string }).accessToken
    for (const note of [...NOTES].reverse())
      assert.equal((await apiCall(server.base, token, 'POST', '/add-note', { ...note, tags: [] })).status, 200)
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true })
  })
  after(async () => {
    await server?.close()
  })

  async function signedIn(viewport: ViewportName, colorScheme: 'light' | 'dark') {
    const opened = await openPage(browser(), { ...VIEWPORTS[viewport], colorScheme, reducedMotion: 'reduce' })
    await opened.page.addInitScript(
      (t) => (globalThis as unknown as PageWindow).localStorage.setItem('notes-service.token', t),
      token,
    )
    const dialogs: string[] = []
    opened.page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
    await opened.page.goto(`${server.base}/`)
    await card(opened.page, 'Shopping').waitFor()
    return { ...opened, dialogs }
  }

  it('marks the text matched, makes no element of HTML in the note or the pattern, and survives costly and foreign patterns', async () => {
    const { context, page, record, dialogs } = await signedIn('desktop', 'light')
    try {
      // Literal (the default): the note's HTML is text, found and marked as text.
      await search(page, IMG, 1)
      assert.deepEqual(await marksOf(page, NOTES[0]!.title), [IMG])
      assert.equal(
        await card(page, NOTES[0]!.title)
          .locator('.note-body')
          .innerText()
          .then((t) => t.includes(`${IMG} and <script>`)),
        true,
      )

      // The pattern with HTML in it, as a regular expression: only its b's match here.
      await setRegex(page, true)
      await search(page, HOSTILE_PATTERN, NOTES.length)
      assert.deepEqual(await marksOf(page, NOTES[0]!.title), ['b', 'b', 'b', 'b'])
      // The title reads as typed, tags and all; the card's text is the note's, not its HTML.
      assert.equal(await card(page, NOTES[0]!.title).getByRole('heading').innerText(), NOTES[0]!.title)
      assert.deepEqual(await marksOf(page, 'Birthday list'), ['B', 'B', 'b'])
      assert.deepEqual(await foreignElements(page), [])

      // RE2's own syntax: the API searches it, this browser cannot compile it, so nothing is marked.
      await search(page, '(?i)SHOPPING', 1)
      assert.deepEqual(await marksOf(page, 'Shopping'), [])
      assert.equal(await page.getByRole('alert').count(), 0)
      await search(page, '[[:alpha:]]ilk', 1)
      assert.deepEqual(await marksOf(page, 'Shopping'), [])

      // A pattern matching the empty string, in cards holding emoji: every note is found, only the
      // x's are marked, and the page goes on (the next search shows).
      await search(page, 'x*', NOTES.length)
      assert.deepEqual(await marksOf(page, 'Long log'), ['xx'])
      assert.deepEqual(await marksOf(page, 'Birthday list'), ['x'])
      assert.deepEqual(await marksOf(page, 'Shopping'), [])

      // Shaped for backtracking: the API finds it, the browser does not try.
      await search(page, '(a+)+b', 1)
      assert.deepEqual(await marksOf(page, 'Long log'), [])

      // Every character a match: at most 100 marks in one card, title included.
      await search(page, '.', NOTES.length)
      const long = card(page, 'Long log')
      await long.locator('mark').nth(99).waitFor()
      assert.equal(await long.locator('mark').count(), 100)
      assert.equal(await long.getByRole('heading').locator('mark').count(), 'Long log'.length)
      assert.equal(await long.getByRole('heading').innerText(), 'Long log')

      // The list's excerpts are marked the same way.
      await search(page, 'fig|sock', 1)
      await page.getByRole('button', { name: 'List', exact: true }).click()
      await page.locator('.note-grid.list .note-excerpt mark').first().waitFor()
      assert.deepEqual(await card(page, 'Birthday list').locator('.note-excerpt mark').allInnerTexts(), ['fig', 'sock'])
      await page.getByRole('button', { name: 'Cards', exact: true }).click()

      assert.deepEqual(await foreignElements(page), [])
      assert.equal(await page.evaluate(() => (globalThis as unknown as PageWindow).__xss), undefined)
      assert.deepEqual(dialogs, [])
      assertClean(record)
    } finally {
      await context.close()
    }
  })

  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    for (const colorScheme of ['light', 'dark'] as const) {
      it(`marked results, ${viewport}, ${colorScheme}: no serious or critical axe violation`, async () => {
        const { context, page, record } = await signedIn(viewport, colorScheme)
        try {
          await setRegex(page, true)
          await search(page, '<b>|\\bb\\w+', 3)
          await card(page, 'Shopping').locator('mark').first().waitFor()
          const violations = await seriousAxeViolations(page)
          assert.deepEqual(violations, [], JSON.stringify(violations, null, 2))
          assertClean(record)
          if (SCREENSHOTS)
            await page.screenshot({ path: join(SCREENSHOTS, `search-highlight-${viewport}-${colorScheme}.png`) })
        } finally {
          await context.close()
        }
      })
    }
  }
})
