// Long unbroken words in the web app, in Debian's Chromium against the built service, at the
// phone and desktop viewports, light and dark: a 300-character word (a hash, as a URL would be) in
// a note's title and content, a tag as long as the API takes (100 characters), a long line of
// code, a table, and a session whose User-Agent and an account whose name have no space. Nothing
// may stick out of its card (cards and list), the editor (writing and preview), the tag filter, a
// toast, the search's messages or the account page's panels, and the page never scrolls sideways.
// With WEB_SCREENSHOTS=DIR each screen is saved there as long-words-<screen>-<viewport>-<scheme>.png.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import { openPage } from '../support/browser.js'
import { uniqueEmail } from '../support/harness.js'
import { PASSWORD, apiCall, assertClean, suiteChromium } from '../support/web-flows.js'
import { pageSidewaysScroll, sidewaysOverflow } from '../support/web-layout.js'
import { VIEWPORTS, type ViewportName, type WebServer, startWebServer } from '../support/web.js'

const SCREENSHOTS = process.env.WEB_SCREENSHOTS

/** `length` hexadecimal characters, no space: a hash, or the path of a long URL. */
function word(seed: string, length: number): string {
  let text = ''
  for (let i = 0; text.length < length; i++) text += createHash('sha256').update(`${seed}${i}`).digest('hex')
  return text.slice(0, length)
}

const WORD = word('word', 300)
const TAG = word('tag', 100)
const TITLE = `Release ${WORD}`
const CONTENT = [
  `Checksum ${WORD}, see https://example.org/builds/${WORD.slice(0, 120)} and \`${WORD.slice(0, 80)}\`.`,
  '',
  '```',
  `sha256sum --check ${WORD}`,
  '```',
  '',
  '| file | hash |',
  '|---|---|',
  `| notes.tar | ${WORD.slice(0, 160)} |`,
].join('\n')
const LONG_NAME = word('name', 200)
/** The API keeps 200 characters of a User-Agent; describe.ts names one with no space by itself. */
const LONG_CLIENT = word('client', 300)

/**
 * What scrolls or clips sideways on purpose, its own box inside the rest: code blocks and tables
 * (they scroll), inputs (their text scrolls), the tag filter's row of chips (it scrolls), and a
 * card's row of tags, which shows what fits (checked apart: its first tag is cut to fit).
 */
const SCROLLERS = '.markdown pre, .markdown table, input, .tag-filter, .note-footer .tags'

/** Tag buttons whose right edge is past the end of their card's row of tags. */
function tagsCutOff(page: Page): Promise<string[]> {
  return page.locator('.note-footer .tags').evaluateAll((rows: unknown[]) =>
    (
      rows as Array<{
        getBoundingClientRect(): { right: number }
        querySelector(s: string): { textContent: string | null; getBoundingClientRect(): { right: number } } | null
      }>
    ).flatMap((row) => {
      const first = row.querySelector('li:first-child .tag')
      return first && first.getBoundingClientRect().right > row.getBoundingClientRect().right + 1
        ? [first.textContent ?? '']
        : []
    }),
  )
}

async function expectNothingSticksOut(page: Page, selector: string, what: string): Promise<void> {
  assert.deepEqual(await sidewaysOverflow(page, selector, SCROLLERS), [], `${what}: nothing sticks out sideways`)
  assert.equal(await pageSidewaysScroll(page), 0, `${what}: the page does not scroll sideways`)
}

describe('long unbroken words in the web app', () => {
  const browser = suiteChromium()
  let server: WebServer
  let token: string

  before(async () => {
    server = await startWebServer('sqlite')
    const email = uniqueEmail('web-long-words')
    const created = await apiCall(server.base, '', 'POST', '/create-account', {
      fullName: LONG_NAME,
      email,
      password: PASSWORD,
    })
    assert.equal(created.status, 200, JSON.stringify(created.json))
    token = (created.json as { accessToken: string }).accessToken
    const other = await apiCall(
      server.base,
      '',
      'POST',
      '/login',
      { email, password: PASSWORD },
      { 'user-agent': LONG_CLIENT },
    )
    assert.equal(other.status, 200, JSON.stringify(other.json))
    for (const note of [
      { title: 'Groceries', content: '- oat milk\n- **coffee**', tags: ['home'] },
      { title: WORD, content: WORD, tags: [TAG] },
      { title: TITLE, content: CONTENT, tags: [TAG, 'work'] },
    ]) {
      const added = await apiCall(server.base, token, 'POST', '/add-note', note)
      assert.equal(added.status, 200, JSON.stringify(added.json))
    }
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true })
  })
  after(async () => {
    await server?.close()
  })

  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    for (const colorScheme of ['light', 'dark'] as const) {
      it(`wrap, are cut or scroll inside their boxes at the ${viewport} viewport, ${colorScheme}`, async () => {
        const { context, page, record } = await openPage(browser(), {
          ...VIEWPORTS[viewport],
          colorScheme,
          reducedMotion: 'reduce',
        })
        const shot = async (screen: string, fullPage = false) => {
          if (SCREENSHOTS)
            await page.screenshot({
              path: join(SCREENSHOTS, `long-words-${screen}-${viewport}-${colorScheme}.png`),
              fullPage,
            })
        }
        try {
          await page.addInitScript(
            (t) =>
              (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem(
                'notes-service.token',
                t,
              ),
            token,
          )
          await page.goto(`${server.base}/`)
          const longCard = page.locator('article.note', {
            has: page.getByRole('heading', { name: TITLE, exact: true }),
          })
          await longCard.locator('.note-body table').waitFor()
          await page
            .locator('article.note', { has: page.getByRole('heading', { name: WORD, exact: true }) })
            .locator('.note-body p')
            .waitFor()

          // Cards: the title wraps (two lines at most, then an ellipsis), the Markdown wraps, the
          // code block and the table scroll inside the card, the tag is cut.
          await expectNothingSticksOut(page, 'article.note', 'cards')
          assert.deepEqual(
            await tagsCutOff(page),
            [],
            'a first tag wider than its row is cut with an ellipsis, inside the row',
          )
          const code = await longCard.locator('pre').evaluate((pre: unknown) => {
            const el = pre as { scrollWidth: number; clientWidth: number }
            return { scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }
          })
          assert.ok(code.scrollWidth > code.clientWidth, 'the long line of code scrolls inside its block')
          const titleLines = await longCard.locator('.note-open').evaluate((button: unknown) => {
            const el = button as { clientHeight: number }
            return el.clientHeight
          })
          assert.ok(titleLines > 30, 'the title wraps onto a second line')
          const body = await longCard
            .locator('.note-body p')
            .first()
            .evaluate((p: unknown) => (p as { clientHeight: number }).clientHeight)
          assert.ok(body > 40, 'the content wraps')
          // The tag filter: the long tag's chip is cut, the row of chips scrolls sideways inside its box.
          await expectNothingSticksOut(page, '.topbar', 'the header')
          await expectNothingSticksOut(page, '.toolbar', 'the toolbar')
          const chip = await page
            .getByRole('group', { name: 'Filter by tag' })
            .getByRole('button', { name: new RegExp(`^${TAG}`) })
            .boundingBox()
          assert.ok(chip && chip.width <= 260, `the long tag's chip is cut (${chip?.width}px wide)`)
          await shot('cards')

          // The list: one line each, cut with an ellipsis.
          await page.getByRole('button', { name: 'List', exact: true }).click()
          await page.locator('.note-grid.list article.note-row').first().waitFor()
          await expectNothingSticksOut(page, 'article.note', 'the list')
          assert.deepEqual(await tagsCutOff(page), [], 'the list: a first tag wider than its row is cut inside the row')
          await shot('list')
          await page.getByRole('button', { name: 'Cards', exact: true }).click()
          await page.locator('.note-grid.cards article.note-card').first().waitFor()

          // The editor: the title and the content wrap in their fields (the title's grows), the
          // content in the preview too, and the tag inside its chip.
          await longCard.getByRole('button', { name: TITLE, exact: true }).click()
          const dialog = page.getByRole('dialog', { name: 'Edit note' })
          await dialog.waitFor()
          await expectNothingSticksOut(page, 'dialog.editor', 'the editor')
          const measure = (field: unknown) => {
            const el = field as { scrollWidth: number; clientWidth: number; clientHeight: number }
            return { scrollWidth: el.scrollWidth, clientWidth: el.clientWidth, clientHeight: el.clientHeight }
          }
          const titleField = await dialog.getByLabel('Title').evaluate(measure)
          assert.ok(titleField.scrollWidth <= titleField.clientWidth, 'the title wraps in its field')
          assert.ok(titleField.clientHeight > 60, `the title's field grows with it (${titleField.clientHeight}px)`)
          const contentField = await dialog.getByLabel('Content', { exact: true }).evaluate(measure)
          assert.ok(contentField.scrollWidth <= contentField.clientWidth, 'the content wraps in its field')
          await shot('editor')
          await dialog.getByRole('button', { name: 'Preview' }).click()
          await dialog.locator('.preview table').waitFor()
          await expectNothingSticksOut(page, 'dialog.editor', 'the preview')
          await shot('preview')
          await page.keyboard.press('Escape')
          await dialog.waitFor({ state: 'detached' })

          // Searching for the word: the matches are marked and still wrap; a search that finds
          // nothing quotes the query's first 60 characters.
          const box = page.getByRole('searchbox', { name: 'Search notes' })
          await box.fill(WORD.slice(0, 200))
          await page.getByText(/^2 notes match$/).waitFor()
          await longCard.locator('.note-open mark').waitFor()
          await expectNothingSticksOut(page, 'article.note', 'highlighted matches')
          await box.fill(`${WORD}x`)
          await page.getByText(`No notes match “${WORD.slice(0, 60)}…”`, { exact: true }).waitFor()
          await expectNothingSticksOut(page, '.notes-page', 'no match')
          await box.fill('')
          await longCard.waitFor()

          // The history's heading names the title, in two lines at most.
          await longCard.getByRole('button', { name: `History of “${TITLE}”` }).click()
          const history = page.getByRole('dialog', { name: `History of “${TITLE}”` })
          await history.locator('.history-empty, .revisions').first().waitFor()
          await expectNothingSticksOut(page, '.history', 'the history')
          await page.keyboard.press('Escape')
          await history.waitFor({ state: 'detached' })

          await longCard.getByRole('button', { name: `Delete “${TITLE}”` }).click()
          await page.getByRole('status').filter({ hasText: 'Note moved to trash' }).waitFor()
          await expectNothingSticksOut(page, '.toasts', 'the toast')
          await shot('toast')
          await page.getByRole('button', { name: 'Undo' }).click()
          await longCard.waitFor()

          // The account page: the name and the other session's client wrap in their panels.
          await page.goto(`${server.base}/account`)
          await page.getByRole('list', { name: 'Sessions' }).getByRole('listitem').nth(1).waitFor()
          await page.getByRole('list', { name: 'Sessions' }).getByText(LONG_CLIENT.slice(0, 200)).waitFor()
          await expectNothingSticksOut(page, '.panel', 'the account page')
          await shot('account', true)
          assertClean(record)
        } finally {
          await context.close()
        }
      })
    }
  }

  it('keeps the title one line of text: a line break typed or pasted is a space, Enter saves', async () => {
    const { context, page, record } = await openPage(browser(), { ...VIEWPORTS.desktop, colorScheme: 'light' })
    try {
      await page.addInitScript(
        (t) =>
          (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem(
            'notes-service.token',
            t,
          ),
        token,
      )
      await page.goto(`${server.base}/`)
      await page.getByRole('heading', { name: 'Groceries' }).waitFor()
      await page.keyboard.press('n')
      const dialog = page.getByRole('dialog', { name: 'New note' })
      await dialog.getByLabel('Content', { exact: true }).fill('body')
      const title = dialog.getByLabel('Title')
      await title.fill('Two\nlines')
      assert.equal(await title.inputValue(), 'Two lines')
      await title.press('Enter')
      await dialog.waitFor({ state: 'detached' })
      await page.getByRole('heading', { name: 'Two lines', exact: true }).waitFor()
      const { json } = await apiCall(server.base, token, 'GET', '/get-all-notes')
      assert.ok((json as { notes: Array<{ title: string }> }).notes.some((n) => n.title === 'Two lines'))
      assertClean(record)
    } finally {
      await context.close()
    }
  })
})
