// The web app as a person uses it, in Debian's Chromium against the real service
// started as `npm start` starts it, on SQLite and on PostgreSQL, at a desktop and a phone
// viewport: signing up (a password under 8 characters refused before anything is sent, an
// operator's higher minimum in the API's words) and in (with no minimum), staying signed in, the
// 401 path, notes (create, edit, tags, pin, delete to the trash and undo), cards and list, search (literal,
// regex, invalid pattern), the tag filter, the keyboard, untrusted Markdown, and the API's own
// messages. Every page must load nothing from another host, break no CSP rule and throw nothing.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { BrowserContext, Page } from 'playwright-core'
import { type PageRecord, openPage } from '../support/browser.js'
import { eventually } from '../support/eventually.js'
import type { PageWindow } from '../support/page-globals.js'
import {
  PASSWORD,
  alertText,
  apiCall,
  assertClean,
  holdLiveUpdates,
  signUp,
  suiteChromium,
  tokenOf,
} from '../support/web-flows.js'
import { TEST_SECRET, uniqueEmail } from '../support/harness.js'
import { storeKinds } from '../support/stores.js'
import { VIEWPORTS, type ViewportName, type WebServer, startWebServer } from '../support/web.js'

/** Low, so the 429 and its wait are reached in a few tries (per email and client address). */
const PAIR_LIMIT = '3'

interface ApiNote {
  _id: string
  title: string
  content: string
  tags: string[]
  isPinned: boolean
}

async function serverNotes(base: string, token: string): Promise<ApiNote[]> {
  const { status, json } = await apiCall(base, token, 'GET', '/get-all-notes')
  assert.equal(status, 200)
  return (json as { notes: ApiNote[] }).notes
}

const card = (page: Page, title: string) =>
  page.locator('article.note', { has: page.getByRole('heading', { name: title, exact: true }) })

async function writeNote(page: Page, note: { title: string; content: string; tags?: string[] }): Promise<void> {
  await page.keyboard.press('n')
  const dialog = page.getByRole('dialog', { name: 'New note' })
  await dialog.waitFor()
  await dialog.getByLabel('Title').fill(note.title)
  await dialog.getByLabel('Content', { exact: true }).fill(note.content)
  for (const tag of note.tags ?? []) {
    await dialog.getByRole('combobox', { name: 'Add a tag' }).fill(tag)
    await page.keyboard.press('Enter')
  }
  await page.keyboard.press('Control+Enter')
  await dialog.waitFor({ state: 'detached' })
  await card(page, note.title).waitFor()
}

const kinds = storeKinds()
const viewports = Object.keys(VIEWPORTS) as ViewportName[]

describe('the web app in a browser', () => {
  const browser = suiteChromium()

  for (const storeKind of kinds) {
    describe(`on ${storeKind}`, () => {
      let server: WebServer
      before(async () => {
        server = await startWebServer(storeKind, { LOGIN_FAILURES_PER_ACCOUNT_AND_CLIENT: PAIR_LIMIT })
      })
      after(async () => {
        await server?.close()
      })

      for (const viewport of viewports) {
        describe(`at the ${viewport} viewport`, () => {
          let context: BrowserContext
          let page: Page
          let record: PageRecord
          const email = uniqueEmail(`web-${viewport}`)
          const fullName = `Ada ${viewport}`

          before(async () => {
            ;({ context, page, record } = await openPage(browser(), { ...VIEWPORTS[viewport], colorScheme: 'light' }))
          })
          after(async () => {
            await context?.close()
          })

          it("signs up, showing the API's messages for what is missing and for a taken email, and refusing a short password before sending it", async () => {
            await page.goto(`${server.base}/`)
            await page.waitForURL(`${server.base}/sign-in`)
            await page.getByRole('link', { name: 'Create an account' }).click()
            await page.waitForURL(`${server.base}/sign-up`)
            await page.getByRole('button', { name: 'Create account' }).click()
            assert.equal(await alertText(page), 'Full Name is required')

            // The password asks for 8 characters: a hint under the field, and a shorter one is
            // refused in the API's words with nothing sent.
            const sent: string[] = []
            const watch = (request: { url(): string }) => void sent.push(new URL(request.url()).pathname)
            page.on('request', watch)
            await page.getByLabel('Full name').fill(fullName)
            await page.getByLabel('Email').fill(email)
            const password = page.getByLabel('Password')
            assert.equal(await password.getAttribute('minlength'), '8')
            const hint = page.getByText('At least 8 characters.', { exact: true })
            assert.ok(await hint.isVisible(), 'the hint shows under the field')
            assert.equal(
              await password.getAttribute('aria-describedby'),
              await hint.getAttribute('id'),
              'the hint describes the field',
            )
            await password.fill('abc12')
            await page.getByRole('button', { name: 'Create account' }).click()
            await page
              .getByRole('alert')
              .filter({ hasText: /^Password must be at least 8 characters$/ })
              .waitFor()
            assert.equal(await password.getAttribute('aria-invalid'), 'true')
            assert.equal(
              await page.evaluate(() =>
                (globalThis as unknown as PageWindow).document.activeElement?.getAttribute('name'),
              ),
              'password',
            )
            page.off('request', watch)
            assert.ok(!sent.includes('/create-account'), `nothing sent: ${sent.join(', ')}`)

            await signUp(page, server.base, fullName, email)
            assert.equal(page.url(), `${server.base}/`)
            await page.getByRole('link', { name: fullName }).waitFor()
            // Empty state, then the same email again in a fresh context.
            await page.getByText('No notes yet').waitFor()
            const other = await openPage(browser(), VIEWPORTS[viewport])
            try {
              await other.page.goto(`${server.base}/sign-up`)
              await other.page.getByLabel('Full name').fill('Someone else')
              await other.page.getByLabel('Email').fill(email)
              await other.page.getByLabel('Password').fill('another password')
              await other.page.getByRole('button', { name: 'Create account' }).click()
              assert.equal(await alertText(other.page), 'User already exists')
              assertClean(other.record)
            } finally {
              await other.context.close()
            }
          })

          it('stays signed in across a reload, signs out (its token refused from then on), and signs in again', async () => {
            const asked: string[] = []
            const ask = (request: { url(): string }) => void asked.push(new URL(request.url()).pathname)
            page.on('request', ask)
            await page.reload()
            await page.getByRole('link', { name: fullName }).waitFor()
            await page.getByText('No notes yet').waitFor()
            assert.equal(page.url(), `${server.base}/`)
            // With a replica on this device, the notes show from it and the feed brings what changed.
            await eventually('the feed read and held', async () => asked.includes('/stream-changes'))
            assert.deepEqual(
              asked.filter((path) => path === '/get-all-notes'),
              [],
            )
            // Without one, the listing is asked for once, as the script starts (web/src/early-listing.ts):
            // before the module script has finished, so before DOMContentLoaded, not after React rendered.
            asked.length = 0
            type Local = { localStorage: { getItem(key: string): string | null; removeItem(key: string): void } }
            await eventually(
              'the replica written',
              async () =>
                (await page.evaluate(() =>
                  (globalThis as unknown as Local).localStorage.getItem('notes-service.replica'),
                )) !== null,
            )
            await page.evaluate(() => (globalThis as unknown as Local).localStorage.removeItem('notes-service.replica'))
            await page.reload()
            await page.getByText('No notes yet').waitFor()
            page.off('request', ask)
            assert.deepEqual(
              asked.filter((path) => path === '/get-all-notes'),
              ['/get-all-notes'],
            )
            const [asksAt, contentLoaded] = await page.evaluate(() => {
              const w = globalThis as unknown as PageWindow
              const listing = w.performance.getEntriesByType('resource').find((e) => e.name.endsWith('/get-all-notes'))
              const navigation = w.performance.getEntriesByType('navigation')[0] as unknown as {
                domContentLoadedEventStart: number
              }
              return [listing?.startTime ?? Infinity, navigation.domContentLoadedEventStart]
            })
            assert.ok(
              asksAt < contentLoaded,
              `listing asked for at ${asksAt} ms, DOMContentLoaded at ${contentLoaded} ms`,
            )
            const before = (await tokenOf(page))!
            await page.getByRole('button', { name: 'Sign out' }).click()
            await page.waitForURL(`${server.base}/sign-in`)
            assert.equal(await tokenOf(page), null)
            // Signing out ends the session on the server (POST /logout), not only in the browser.
            await eventually(
              'the signed-out token refused',
              async () => (await apiCall(server.base, before, 'GET', '/get-user')).status === 401,
            )
            await page.getByLabel('Email').fill(email)
            await page.getByLabel('Password').fill('not the password')
            await page.getByRole('button', { name: 'Sign in' }).click()
            assert.equal(await alertText(page), 'Invalid Credentials')
            await page.getByLabel('Password').fill(PASSWORD)
            await page.getByRole('button', { name: 'Sign in' }).click()
            await page.getByRole('link', { name: fullName }).waitFor()
            assert.ok(await tokenOf(page))
          })

          it("shows a 429's message and its wait", async () => {
            const other = await openPage(browser(), VIEWPORTS[viewport])
            try {
              await other.page.goto(`${server.base}/sign-in`)
              await other.page.getByLabel('Email').fill(uniqueEmail('throttled'))
              await other.page.getByLabel('Password').fill('wrong')
              for (let i = 0; i <= Number(PAIR_LIMIT); i++) {
                await other.page.getByRole('button', { name: 'Sign in' }).click()
                await other.page.getByRole('button', { name: 'Sign in' }).waitFor()
                if (i < Number(PAIR_LIMIT)) assert.equal(await alertText(other.page), 'Invalid Credentials')
              }
              assert.match(
                await alertText(other.page),
                /^Too many failed login attempts; try again later \(wait \d+ min( \d+ s)?\)$/,
              )
              assertClean(other.record)
            } finally {
              await other.context.close()
            }
          })

          it('signs in with a password shorter than sign-up asks for: the sign-in form imposes no minimum', async () => {
            // An account the API took with a 5-character password (any non-empty one, unless
            // MIN_PASSWORD_LENGTH is set), as accounts from before the minimum have.
            const shortEmail = uniqueEmail(`web-short-${viewport}`)
            const created = await apiCall(server.base, '', 'POST', '/create-account', {
              fullName: `Short ${viewport}`,
              email: shortEmail,
              password: 'abc12',
            })
            assert.equal(created.status, 200, JSON.stringify(created.json))
            const other = await openPage(browser(), VIEWPORTS[viewport])
            try {
              await other.page.goto(`${server.base}/sign-in`)
              const password = other.page.getByLabel('Password')
              assert.equal(await password.getAttribute('minlength'), null)
              assert.equal(await other.page.getByText('At least 8 characters.').count(), 0)
              await other.page.getByLabel('Email').fill(shortEmail)
              await password.fill('abc12')
              await other.page.getByRole('button', { name: 'Sign in' }).click()
              await other.page.getByRole('link', { name: `Short ${viewport}` }).waitFor()
              assertClean(other.record)
            } finally {
              await other.context.close()
            }
          })

          it('creates notes with tags (chips with autocomplete), edits one, and shows each at once', async () => {
            const token = (await tokenOf(page))!
            await writeNote(page, { title: 'Groceries', content: '- milk\n- **coffee**', tags: ['home', 'shopping'] })
            await writeNote(page, { title: 'Standup', content: 'Talked about the *roadmap*.', tags: ['work'] })
            assert.equal(await card(page, 'Groceries').locator('.note-body strong').innerText(), 'coffee')

            // Autocomplete from the existing tags: "sh" offers "shopping".
            await page.keyboard.press('n')
            const dialog = page.getByRole('dialog', { name: 'New note' })
            await dialog.getByLabel('Title').fill('Hardware store')
            await dialog.getByLabel('Content', { exact: true }).fill('Screws, a=b*c')
            await dialog.getByRole('combobox', { name: 'Add a tag' }).fill('sh')
            await dialog.getByRole('option', { name: 'shopping' }).waitFor()
            await page.keyboard.press('ArrowDown')
            await page.keyboard.press('Enter')
            await dialog.locator('.chip', { hasText: 'shopping' }).waitFor()
            await dialog.getByRole('button', { name: 'Save' }).click()
            // The card shows as the change is queued; the editor closes once the service has answered.
            // Until then `n` goes to the open editor, and the next steps would type into it.
            await dialog.waitFor({ state: 'detached' })
            await card(page, 'Hardware store').waitFor()

            // Add-note's own message for a missing title.
            await page.keyboard.press('n')
            await page.getByRole('dialog', { name: 'New note' }).getByLabel('Content', { exact: true }).fill('no title')
            await page.keyboard.press('Control+Enter')
            assert.equal(await alertText(page), 'Title is required')
            await page.keyboard.press('Escape') // unsaved changes: asks first
            await page.getByText('You have unsaved changes').waitFor()
            await page.keyboard.press('Escape')
            await page.getByRole('dialog').waitFor({ state: 'detached' })

            // Edit: open from the card, change the title, Ctrl+Enter.
            await card(page, 'Standup').getByRole('button', { name: 'Standup', exact: true }).click()
            const editor = page.getByRole('dialog', { name: 'Edit note' })
            await editor.getByLabel('Title').fill('Standup, Tuesday')
            await page.keyboard.press('Control+Enter')
            await editor.waitFor({ state: 'detached' }) // answered by the service, so the listing below holds it
            await card(page, 'Standup, Tuesday').waitFor()

            const saved = await serverNotes(server.base, token)
            assert.deepEqual(saved.map((n) => n.title).sort(), ['Groceries', 'Hardware store', 'Standup, Tuesday'])
            assert.deepEqual(saved.find((n) => n.title === 'Groceries')?.tags, ['home', 'shopping'])
            assert.deepEqual(saved.find((n) => n.title === 'Hardware store')?.tags, ['shopping'])
          })

          it('pins and unpins from the card, pinned first', async () => {
            const token = (await tokenOf(page))!
            await card(page, 'Groceries').getByRole('button', { name: 'Pin “Groceries”' }).click()
            await page.getByRole('heading', { name: 'Pinned' }).waitFor()
            const first = page.locator('article.note').first()
            assert.equal(await first.getByRole('heading').innerText(), 'Groceries')
            assert.equal(
              await card(page, 'Groceries')
                .getByRole('button', { name: 'Pin “Groceries”' })
                .getAttribute('aria-pressed'),
              'true',
            )
            await eventually(
              'pinned on the server',
              async () =>
                (await serverNotes(server.base, token)).find((n) => n.title === 'Groceries')?.isPinned === true,
            )
            await card(page, 'Groceries').getByRole('button', { name: 'Pin “Groceries”' }).click()
            await page.getByRole('heading', { name: 'Pinned' }).waitFor({ state: 'detached' })
            await eventually(
              'unpinned on the server',
              async () =>
                (await serverNotes(server.base, token)).find((n) => n.title === 'Groceries')?.isPinned === false,
            )
          })

          it('moves a deleted note to the trash at once, and Undo brings it back', async () => {
            const token = (await tokenOf(page))!
            await card(page, 'Hardware store').getByRole('button', { name: 'Delete “Hardware store”' }).click()
            await card(page, 'Hardware store').waitFor({ state: 'detached' })
            await page.getByRole('status').filter({ hasText: 'Note moved to trash' }).waitFor()
            const trash = async () =>
              ((await apiCall(server.base, token, 'GET', '/get-trash')).json as { notes: ApiNote[] }).notes
            assert.ok(
              !(await serverNotes(server.base, token)).some((n) => n.title === 'Hardware store'),
              'deleted on the server at once',
            )
            assert.ok(
              (await trash()).some((n) => n.title === 'Hardware store'),
              'in the trash',
            )
            await page.getByRole('button', { name: 'Undo' }).click()
            await card(page, 'Hardware store').waitFor()
            await eventually('restored on the server', async () =>
              (await serverNotes(server.base, token)).some((n) => n.title === 'Hardware store'),
            )
            assert.ok(!(await trash()).some((n) => n.title === 'Hardware store'), 'no longer in the trash')

            // Without the Undo it stays in the trash once its toast has gone.
            await card(page, 'Hardware store').getByRole('button', { name: 'Delete “Hardware store”' }).click()
            const toast = page.getByRole('status').filter({ hasText: 'Note moved to trash' })
            await toast.waitFor()
            await toast.waitFor({ state: 'detached', timeout: 10_000 })
            assert.ok(
              (await trash()).some((n) => n.title === 'Hardware store'),
              'in the trash',
            )
            await card(page, 'Hardware store').waitFor({ state: 'detached' })
          })

          it('drops a note deleted on another device once pinning, deleting or editing it meets "Note not found"', async () => {
            const token = (await tokenOf(page))!
            await writeNote(page, { title: 'Gone to pin', content: 'a' })
            await writeNote(page, { title: 'Gone to delete', content: 'b' })
            await writeNote(page, { title: 'Gone to edit', content: 'c' })
            // The page must not learn of the deletes before it tries.
            const release = await holdLiveUpdates(page)
            for (const note of (await serverNotes(server.base, token)).filter((n) => n.title.startsWith('Gone to'))) {
              const res = await fetch(`${server.base}/delete-note/${note._id}`, {
                method: 'DELETE',
                headers: { authorization: `Bearer ${token}` },
              })
              assert.equal(res.status, 200)
            }
            // A delete answered 404 is done: the card stays away and no error is shown.
            const deleted = page.waitForResponse((r) => r.url().includes('/delete-note/'))
            await card(page, 'Gone to delete').getByRole('button', { name: 'Delete “Gone to delete”' }).click()
            assert.equal((await deleted).status(), 404)
            await card(page, 'Gone to delete').waitFor({ state: 'detached' })
            // A pin answered 404 shows the API's message, and the card goes.
            await card(page, 'Gone to pin').getByRole('button', { name: 'Pin “Gone to pin”' }).click()
            const toast = page.getByRole('alert').filter({ hasText: 'Could not pin “Gone to pin”: Note not found' })
            await toast.waitFor()
            await card(page, 'Gone to pin').waitFor({ state: 'detached' })
            assert.equal(await card(page, 'Gone to delete').count(), 0)
            assert.equal(await page.getByText('Could not delete').count(), 0)
            await toast.getByRole('button', { name: 'Dismiss' }).click()
            await toast.waitFor({ state: 'detached' })
            // An edit answered 404 shows the API's message in the editor, and the card goes.
            await card(page, 'Gone to edit').getByRole('button', { name: 'Gone to edit', exact: true }).click()
            await page.getByRole('dialog', { name: 'Edit note' }).getByLabel('Title').fill('Gone to edit, changed')
            await page.keyboard.press('Control+Enter')
            assert.equal(await alertText(page), 'Note not found')
            await card(page, 'Gone to edit').waitFor({ state: 'detached' })
            await page.keyboard.press('Escape') // unsaved changes: asks first
            await page.getByText('You have unsaved changes').waitFor()
            await page.keyboard.press('Escape')
            await page.getByRole('dialog').waitFor({ state: 'detached' })
            await release()
          })

          it('switches between cards and list', async () => {
            await page.getByRole('button', { name: 'List', exact: true }).click()
            await page.locator('.note-grid.list article.note-row').first().waitFor()
            assert.equal(
              await page.getByRole('button', { name: 'List', exact: true }).getAttribute('aria-pressed'),
              'true',
            )
            await page.reload()
            await page.locator('.note-grid.list').waitFor()
            await page.getByRole('button', { name: 'Cards', exact: true }).click()
            await page.locator('.note-grid.cards article.note-card').first().waitFor()
          })

          it("searches as one types: literal by default, a regex switch, highlighted matches, the API's message for a bad pattern, and a tag filter", async () => {
            const token = (await tokenOf(page))!
            await apiCall(server.base, token, 'POST', '/add-note', {
              title: 'Dotted',
              content: 'version a.b of the plan',
              tags: ['work'],
            })
            await apiCall(server.base, token, 'POST', '/add-note', {
              title: 'Crossed',
              content: 'version axb of the plan',
              tags: [],
            })
            await page.reload()
            await card(page, 'Dotted').waitFor()

            await page.keyboard.press('/')
            const box = page.getByRole('searchbox', { name: 'Search notes' })
            assert.equal(
              await page.evaluate(() =>
                (globalThis as unknown as PageWindow).document.activeElement?.getAttribute('aria-label'),
              ),
              'Search notes',
            )
            await page.keyboard.type('a.b', { delay: 30 })
            await page.getByText(/^1 note matches$/).waitFor()
            assert.equal(await page.locator('article.note').count(), 1)
            assert.equal(await card(page, 'Dotted').locator('mark').first().innerText(), 'a.b')

            await page.getByRole('button', { name: 'Regular expression' }).click()
            await page.getByText(/^2 notes match$/).waitFor()
            await card(page, 'Crossed').locator('mark', { hasText: 'axb' }).waitFor()

            await box.fill('(')
            const expected = (await apiCall(server.base, token, 'GET', '/search-notes?query=(')).json as {
              message: string
            }
            assert.equal(await alertText(page), expected.message)
            await page.getByRole('button', { name: 'Regular expression' }).click()
            await page.getByText(/^No notes match “\(”$/).waitFor()

            await box.press('Escape')
            assert.equal(await box.inputValue(), '')
            await card(page, 'Crossed').waitFor()
            const filter = page.getByRole('group', { name: 'Filter by tag' })
            await filter.getByRole('button', { name: /^work/ }).click()
            await card(page, 'Crossed').waitFor({ state: 'detached' })
            assert.deepEqual((await page.locator('article.note h3').allInnerTexts()).sort(), [
              'Dotted',
              'Standup, Tuesday',
            ])
            await filter.getByRole('button', { name: 'All notes' }).click()
            await card(page, 'Crossed').waitFor()
          })

          it('is usable from the keyboard: n, Esc, Tab to every card action with a visible focus ring', async () => {
            await page.locator('body').click({ position: { x: 2, y: 2 } })
            await page.keyboard.press('n')
            await page.getByRole('dialog', { name: 'New note' }).waitFor()
            assert.equal(
              await page.evaluate(() =>
                (globalThis as unknown as PageWindow).document.activeElement?.getAttribute('name'),
              ),
              'title',
            )
            await page.keyboard.press('Escape')
            await page.getByRole('dialog').waitFor({ state: 'detached' })
            const reached = new Set<string>()
            for (let i = 0; i < 60 && reached.size < 3; i++) {
              await page.keyboard.press('Tab')
              const focused = await page.evaluate(() => {
                const w = globalThis as unknown as PageWindow
                const el = w.document.activeElement
                if (!el || el === w.document.body) return undefined
                // An outline on the element, or the search field's ring around its input.
                const style = w.getComputedStyle(el)
                const ring = el.closest('.search')
                const visible = ring
                  ? w.getComputedStyle(ring).boxShadow !== 'none'
                  : style.outlineStyle !== 'none' && style.outlineWidth !== '0px'
                return {
                  label: el.getAttribute('aria-label') ?? el.textContent ?? '',
                  visible: visible && el.matches(':focus-visible'),
                }
              })
              if (!focused) continue
              assert.ok(focused.visible, `visible focus on ${focused.label}`)
              if (/^(Pin|Delete) “Standup, Tuesday”$/.test(focused.label) || focused.label === 'Standup, Tuesday')
                reached.add(focused.label)
            }
            assert.equal(reached.size, 3, `reached ${[...reached].join(', ')}`)
          })

          it('renders untrusted Markdown inert: <img onerror>, <script>, javascript: links, SVG tricks', async () => {
            const token = (await tokenOf(page))!
            const payloads = [
              '<img src=x onerror="window.__xss=1">',
              '<script>window.__xss=2</script>',
              '[click me](javascript:window.__xss=3)',
              '<a href="javascript:window.__xss=4">raw link</a>',
              '[cased](JaVaScRiPt:window.__xss=5) [entity](&#106;avascript:window.__xss=6)',
              '<svg onload="window.__xss=7"><script>window.__xss=8</script></svg>',
              '<svg><a xlink:href="javascript:window.__xss=9"><text y="20">svg link</text></a></svg>',
              '![svg image](data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIG9ubG9hZD0id2luZG93Ll9feHNzPTEwIi8+)',
              '![js image](javascript:window.__xss=11)',
              '<iframe srcdoc="<script>parent.__xss=12</script>"></iframe>',
            ]
            const dialogs: string[] = []
            page.on('dialog', (d) => {
              dialogs.push(d.message())
              void d.dismiss()
            })
            await apiCall(server.base, token, 'POST', '/add-note', { title: 'Hostile', content: payloads.join('\n\n') })
            await page.reload()
            const body = card(page, 'Hostile').locator('.note-body')
            await body.waitFor()
            await page.waitForTimeout(300)
            const inspect = () =>
              page.evaluate(() => {
                const w = globalThis as unknown as PageWindow
                return {
                  xss: w.__xss,
                  scripts: w.document.querySelectorAll('body script').length,
                  handlers: Array.from(w.document.querySelectorAll('*')).flatMap((el) =>
                    Array.from(el.attributes)
                      .filter((a) => /^on/i.test(a.name))
                      .map((a) => `${el.tagName} ${a.name}`),
                  ),
                  javascriptLinks: Array.from(w.document.querySelectorAll('[href], [src], [xlink\\:href]')).filter(
                    (el) =>
                      ['href', 'src', 'xlink:href'].some((name) =>
                        /^\s*javascript:/i.test(el.getAttribute(name) ?? ''),
                      ),
                  ).length,
                  svg: w.document.querySelectorAll('.markdown svg, .markdown math, .markdown iframe').length,
                }
              })
            assert.deepEqual(await inspect(), { xss: undefined, scripts: 0, handlers: [], javascriptLinks: 0, svg: 0 })
            // Typed HTML reads as the text it is.
            assert.match(await body.innerText(), /<script>window\.__xss=2<\/script>/)
            // Clicking what looks like a link does nothing.
            await card(page, 'Hostile').getByText('click me').click()
            await page.keyboard.press('Escape')
            await page.getByRole('dialog').waitFor({ state: 'detached' })
            // The editor's preview renders the same way.
            await card(page, 'Hostile').getByRole('button', { name: 'Hostile', exact: true }).click()
            await page.getByRole('button', { name: 'Preview' }).click()
            await page.locator('.preview').waitFor()
            await page.waitForTimeout(300)
            assert.deepEqual(await inspect(), { xss: undefined, scripts: 0, handlers: [], javascriptLinks: 0, svg: 0 })
            await page.keyboard.press('Escape')
            await page.getByRole('dialog').waitFor({ state: 'detached' })
            assert.deepEqual(dialogs, [])
            await apiCall(
              server.base,
              token,
              'DELETE',
              `/delete-note/${(await serverNotes(server.base, token)).find((n) => n.title === 'Hostile')!._id}`,
            )
            await page.reload()
            await card(page, 'Dotted').waitFor()
          })

          it('after a 401, goes back to sign-in with a message and brings back what was being typed', async () => {
            // The save meets the 401, not the change feed's reconnection after the restart (which
            // would end the session first, or keep the save in the outbox while the server is down).
            const release = await holdLiveUpdates(page)
            await page.keyboard.press('n')
            const dialog = page.getByRole('dialog', { name: 'New note' })
            await dialog.getByLabel('Title').fill('Half-written')
            await dialog.getByLabel('Content', { exact: true }).fill('typed before the token was refused')
            // A new secret: every token issued so far is refused (401), as an expired one would be.
            await server.restart({ ACCESS_TOKEN_SECRET: `${TEST_SECRET}-rotated` })
            try {
              await page.keyboard.press('Control+Enter')
              await page.waitForURL(`${server.base}/sign-in`)
              await page.getByText('Your session has ended. Please sign in again.', { exact: false }).waitFor()
              assert.equal(await page.getByLabel('Email').inputValue(), email)
              await page.getByLabel('Password').fill(PASSWORD)
              await page.getByRole('button', { name: 'Sign in' }).click()
              const restored = page.getByRole('dialog', { name: 'New note' })
              await restored.waitFor()
              assert.equal(await restored.getByLabel('Title').inputValue(), 'Half-written')
              assert.equal(
                await restored.getByLabel('Content', { exact: true }).inputValue(),
                'typed before the token was refused',
              )
              await page.keyboard.press('Control+Enter')
              await restored.waitFor({ state: 'detached' })
              await card(page, 'Half-written').waitFor()
            } finally {
              await server.restart()
            }
            // Tokens of the rotated secret are refused again now: a reload goes to sign-in (the
            // change feed stays held until then, or its reconnection would end the session first).
            await page.reload()
            await page.waitForURL(`${server.base}/sign-in`)
            await page.getByText('Your session has ended. Please sign in again.').waitFor()
            assert.equal(await page.getByLabel('Email').inputValue(), email, 'the email is read from the refused token')
            await page.getByLabel('Password').fill(PASSWORD)
            await page.getByRole('button', { name: 'Sign in' }).click()
            await card(page, 'Half-written').waitFor()
            await release()
          })

          it('loaded nothing from another host, broke no CSP rule and threw nothing', () => {
            assertClean(record)
          })
        })
      }
    })
  }

  describe('with a minimum set by the operator (MIN_PASSWORD_LENGTH=12)', () => {
    let server: WebServer
    before(async () => {
      server = await startWebServer('sqlite', { MIN_PASSWORD_LENGTH: '12' })
    })
    after(async () => {
      await server?.close()
    })

    it("shows the API's message for a password long enough for the page but not for the API", async () => {
      const { context, page, record } = await openPage(browser(), { ...VIEWPORTS.desktop, colorScheme: 'light' })
      try {
        await page.goto(`${server.base}/sign-up`)
        await page.getByLabel('Full name').fill('Ada Twelve')
        await page.getByLabel('Email').fill(uniqueEmail('web-min-length'))
        await page.getByLabel('Password').fill('ten chars!')
        const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/create-account')
        await page.getByRole('button', { name: 'Create account' }).click()
        assert.equal((await answer).status(), 400)
        assert.equal(await alertText(page), 'Password must be at least 12 characters')
        await page.getByLabel('Password').fill('twelve chars')
        await page.getByRole('button', { name: 'Create account' }).click()
        await page.getByRole('link', { name: 'Ada Twelve' }).waitFor()
        assertClean(record)
      } finally {
        await context.close()
      }
    })
  })
})
