// The web app's account page, in Debian's Chromium against the built service, on
// SQLite and on PostgreSQL: reached from the header as a chunk loaded only then, renaming, the
// sessions list (another login shows up; signing it out makes its token get 401), signing out
// everywhere, changing the password (a new one under 8 characters or equal to the current one
// refused before anything is sent), deleting the account behind a typed confirmation, and the
// header's Sign out ending the token on the server, with a delete made just before it done. axe-core finds no serious violation on the page; nothing leaves loopback, breaks the CSP
// (Trusted Types included) or throws.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { BrowserContext, Page } from 'playwright-core'
import { type PageRecord, openPage } from '../support/browser.js'
import { eventually } from '../support/eventually.js'
import { uniqueEmail } from '../support/harness.js'
import type { PageWindow } from '../support/page-globals.js'
import { storeKinds } from '../support/stores.js'
import { PASSWORD, alertText, apiCall, assertClean, signUp, tokenOf, suiteChromium } from '../support/web-flows.js'
import { VIEWPORTS, type WebServer, seriousAxeViolations, startWebServer } from '../support/web.js'

const FIREFOX_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0'

/** A session of the account opened beside the page, as another device would. */
async function loginElsewhere(
  base: string,
  email: string,
  password = PASSWORD,
  userAgent = FIREFOX_ON_WINDOWS,
): Promise<string> {
  const { status, json } = await apiCall(base, '', 'POST', '/login', { email, password }, { 'user-agent': userAgent })
  assert.equal(status, 200, JSON.stringify(json))
  return (json as { accessToken: string }).accessToken
}

const userStatus = async (base: string, token: string) => (await apiCall(base, token, 'GET', '/get-user')).status

async function openAccount(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Account' }).getByRole('link').click()
  await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor()
  await page.getByRole('list', { name: 'Sessions' }).waitFor()
}

const sessionRows = (page: Page) => page.getByRole('list', { name: 'Sessions' }).getByRole('listitem')

async function signIn(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(`${base}/sign-in`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Your notes' }).waitFor({ state: 'attached' })
}

describe('the account page in a browser', () => {
  const browser = suiteChromium()

  for (const storeKind of storeKinds()) {
    describe(`on ${storeKind}`, () => {
      let server: WebServer
      let context: BrowserContext
      let page: Page
      let record: PageRecord
      const chunks: string[] = []
      const email = uniqueEmail('web-account')
      let password = PASSWORD

      before(async () => {
        server = await startWebServer(storeKind)
        ;({ context, page, record } = await openPage(browser(), { ...VIEWPORTS.desktop, colorScheme: 'light' }))
        page.on('request', (request) => {
          const path = new URL(request.url()).pathname
          if (path.startsWith('/assets/')) chunks.push(path)
        })
      })
      after(async () => {
        await context?.close()
        await server?.close()
      })

      it('is reached from the header, loading its chunk only then, and renames the account', async () => {
        await signUp(page, server.base, 'Ada Lovelace', email)
        assert.ok(
          !chunks.some((path) => /AccountPage/.test(path)),
          `the notes page loaded only its own chunks: ${chunks.join(', ')}`,
        )
        await openAccount(page)
        assert.equal(page.url(), `${server.base}/account`)
        assert.equal(
          await page.getByRole('navigation', { name: 'Account' }).getByRole('link').getAttribute('aria-current'),
          'page',
        )
        assert.ok(
          chunks.some((path) => /AccountPage-.*\.js$/.test(path)),
          'the account page came as a chunk of its own',
        )
        assert.deepEqual(await seriousAxeViolations(page), [])

        const name = page.getByRole('textbox', { name: 'Name' })
        assert.equal(await name.inputValue(), 'Ada Lovelace')
        await name.fill('')
        await page.getByRole('button', { name: 'Save name' }).click()
        assert.equal(await alertText(page), 'Full Name is required')
        // From the keyboard: Enter in the field saves.
        await name.fill('Ada King')
        await name.press('Enter')
        await page.getByRole('status').filter({ hasText: 'Name saved.' }).waitFor()
        await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Ada King' }).waitFor()
        const { json } = await apiCall(server.base, (await tokenOf(page))!, 'GET', '/get-user')
        assert.equal((json as { user: { fullName: string } }).user.fullName, 'Ada King')
      })

      it('lists this device and another login, and signs the other one out', async () => {
        const other = await loginElsewhere(server.base, email)
        await page.reload()
        await page.getByRole('list', { name: 'Sessions' }).waitFor()
        assert.equal(await sessionRows(page).count(), 2)
        assert.match(
          await sessionRows(page).first().innerText(),
          /This device/,
          'this device first, though the other login is newer',
        )
        const mine = sessionRows(page).filter({ hasText: 'This device' })
        assert.match(await mine.innerText(), /^Chrome on Linux/)
        assert.match(await mine.innerText(), /active now/)
        const theirs = sessionRows(page).filter({ hasText: 'Firefox on Windows' })
        assert.match(await theirs.innerText(), /active in the last 5 minutes/)

        await theirs.getByRole('button', { name: /^Sign out Firefox on Windows/ }).click()
        await page.getByRole('status').filter({ hasText: 'Signed out Firefox on Windows.' }).waitFor()
        assert.equal(await sessionRows(page).count(), 1)
        assert.equal(await userStatus(server.base, other), 401)
        assert.equal(await userStatus(server.base, (await tokenOf(page))!), 200)
        // Its button went with its row: the list's heading holds the focus.
        assert.equal(
          await page.evaluate(() => (globalThis as unknown as PageWindow).document.activeElement?.textContent),
          'Where you are signed in',
        )
      })

      it("changes the password, refusing a short or unchanged one before sending it, showing the API's message for a wrong one; the other sessions end, this one goes on", async () => {
        const other = await loginElsewhere(server.base, email)
        await page.reload()
        await eventually('the list shows the other login', async () => (await sessionRows(page).count()) === 2)

        // The new password asks for 8 characters other than the current ones: a hint under the
        // field; a shorter or the same one is refused in the API's words, with nothing sent.
        const sent: string[] = []
        const watch = (request: { url(): string }) => void sent.push(new URL(request.url()).pathname)
        page.on('request', watch)
        const next = page.getByLabel('New password')
        assert.equal(await next.getAttribute('minlength'), '8')
        const hint = page.getByText('At least 8 characters, different from the current one.', { exact: true })
        assert.ok(await hint.isVisible(), 'the hint shows under the field')
        assert.equal(
          await next.getAttribute('aria-describedby'),
          await hint.getAttribute('id'),
          'the hint describes the field',
        )
        await page.getByLabel('Current password').fill(PASSWORD)
        await next.fill('abc12')
        await page.getByRole('button', { name: 'Change password' }).click()
        await page
          .getByRole('alert')
          .filter({ hasText: /^New password must be at least 8 characters$/ })
          .waitFor()
        assert.equal(await next.getAttribute('aria-invalid'), 'true')
        assert.equal(
          await page.evaluate(() => (globalThis as unknown as PageWindow).document.activeElement?.getAttribute('name')),
          'newPassword',
        )
        await next.fill(PASSWORD)
        assert.equal(await next.getAttribute('aria-invalid'), null, 'typing clears the mark')
        await page.getByRole('button', { name: 'Change password' }).click()
        await page
          .getByRole('alert')
          .filter({ hasText: /^New password must be different from the current password$/ })
          .waitFor()
        page.off('request', watch)
        assert.ok(!sent.includes('/change-password'), `nothing sent: ${sent.join(', ')}`)
        assert.equal(await userStatus(server.base, other), 200, 'nothing changed: the other session goes on')

        await page.getByLabel('Current password').fill('not my password')
        await next.fill('a brand new passphrase')
        await page.getByRole('button', { name: 'Change password' }).click()
        await page
          .getByRole('alert')
          .filter({ hasText: /^Invalid Credentials$/ })
          .waitFor()
        assert.equal(await userStatus(server.base, other), 200)

        await page.getByLabel('Current password').fill(PASSWORD)
        await page.getByRole('button', { name: 'Change password' }).click()
        await page
          .getByRole('status')
          .filter({ hasText: 'Password changed. Every other device is signed out.' })
          .waitFor()
        password = 'a brand new passphrase'
        assert.equal(await page.getByLabel('Current password').inputValue(), '')
        assert.equal(await userStatus(server.base, other), 401)
        assert.equal(await userStatus(server.base, (await tokenOf(page))!), 200)
        // The list is read again: this device only.
        await eventually('the list shows this device only', async () => (await sessionRows(page).count()) === 1)

        const old = await apiCall(server.base, '', 'POST', '/login', { email, password: PASSWORD })
        assert.equal((old.json as { message: string }).message, 'Invalid Credentials')
        await loginElsewhere(server.base, email, password)
      })

      it("the header's Sign out ends the token on the server, a delete made while its Undo still shows being done", async () => {
        const token = (await tokenOf(page))!
        await apiCall(server.base, token, 'POST', '/add-note', {
          title: 'Short-lived',
          content: 'deleted just before signing out',
        })
        await page.getByRole('link', { name: '← Back to your notes' }).click()
        const note = page.locator('article.note', { has: page.getByRole('heading', { name: 'Short-lived' }) })
        await note.getByRole('button', { name: 'Delete “Short-lived”' }).click()
        await page.getByRole('button', { name: 'Undo' }).waitFor()
        await page.getByRole('button', { name: 'Sign out' }).click()
        await page.waitForURL(`${server.base}/sign-in`)
        await eventually('the signed-out token refused', async () => (await userStatus(server.base, token)) === 401)
        const fresh = await loginElsewhere(server.base, email, password)
        const { json } = await apiCall(server.base, fresh, 'GET', '/get-all-notes')
        assert.deepEqual((json as { notes: unknown[] }).notes, [], 'the delete went out before the logout')
        const trash = await apiCall(server.base, fresh, 'GET', '/get-trash')
        assert.deepEqual(
          (trash.json as { notes: Array<{ title: string }> }).notes.map((n) => n.title),
          ['Short-lived'],
          'in the trash',
        )
      })

      it('signs out everywhere, this device included, and says so on the sign-in page', async () => {
        await signIn(page, server.base, email, password)
        const other = await loginElsewhere(server.base, email, password)
        const mine = (await tokenOf(page))!
        await openAccount(page)
        await page.getByRole('button', { name: 'Sign out everywhere' }).click()
        await page.waitForURL(`${server.base}/sign-in`)
        await page.getByRole('status').filter({ hasText: 'You are signed out on every device.' }).waitFor()
        assert.equal(await tokenOf(page), null)
        assert.equal(await userStatus(server.base, mine), 401)
        assert.equal(await userStatus(server.base, other), 401)
      })

      it('deletes the account only once its email or DELETE is typed, and with its password', async () => {
        await signIn(page, server.base, email, password)
        const mine = (await tokenOf(page))!
        await openAccount(page)
        const zone = page.getByRole('region', { name: 'Delete account' })
        const confirmation = zone.getByRole('textbox', { name: /to confirm$/ })
        const button = zone.getByRole('button', { name: 'Delete account' })
        assert.equal(await button.isDisabled(), true)
        for (const wrong of ['delete', 'DELET', 'someone@example.com', `${email}x`]) {
          await confirmation.fill(wrong)
          assert.equal(await button.isDisabled(), true, `"${wrong}" does not confirm`)
        }
        await confirmation.fill(` ${email.toUpperCase()} `)
        assert.equal(await button.isDisabled(), false, 'the email in another case confirms')
        await zone.getByLabel('Password').fill('not my password')
        await button.click()
        assert.equal(await alertText(page), 'Invalid Credentials')
        assert.equal(await userStatus(server.base, mine), 200)

        await confirmation.fill('DELETE')
        await zone.getByLabel('Password').fill(password)
        await button.click()
        await page.waitForURL(`${server.base}/sign-in`)
        await page.getByRole('status').filter({ hasText: 'Your account and its notes have been deleted.' }).waitFor()
        assert.equal(await tokenOf(page), null)
        assert.equal(await userStatus(server.base, mine), 401)
        await page.getByLabel('Email').fill(email)
        await page.getByLabel('Password').fill(password)
        await page.getByRole('button', { name: 'Sign in' }).click()
        assert.equal(await alertText(page), 'Invalid Credentials')
      })

      it('loaded nothing from another host, broke no CSP rule and threw nothing', () => {
        assertClean(record)
      })
    })
  }
})
