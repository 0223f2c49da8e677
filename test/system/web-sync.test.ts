// The web app live and offline, in Debian's Chromium against the real service (as `npm start`
// runs it), on SQLite and on PostgreSQL, with two browser contexts signed in as the same person
// (two devices): an edit on one shows on the other, and an editor open on the note keeps its text;
// one goes offline, changes notes and adds one
// while the other edits one of the same notes, and once back online both show the same notes,
// with both versions of the note changed on both, the waiting changes kept across a reload with
// no network and across a session ended elsewhere; an outbox conflict on the note open in the
// editor shows the choice; search works offline; signing out deletes the replica from the browser.
// With WEB_SCREENSHOTS=DIR the offline state and the conflict are saved, light and dark, desktop and phone.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { BrowserContext, Page } from 'playwright-core'
import { type PageRecord, openPage } from '../support/browser.js'
import { eventually } from '../support/eventually.js'
import { uniqueEmail } from '../support/harness.js'
import type { PageWindow } from '../support/page-globals.js'
import { storeKinds } from '../support/stores.js'
import { VIEWPORTS, type WebServer, startWebServer } from '../support/web.js'
import { PASSWORD, apiCall, assertClean, signUp, suiteChromium, tokenOf } from '../support/web-flows.js'

const SCREENSHOTS = process.env.WEB_SCREENSHOTS

/** With WEB_SCREENSHOTS set, `<prefix>-<desktop|phone>-<light|dark>.png` of the page as it is; then back to light desktop. */
async function screenshots(page: Page, prefix: string): Promise<void> {
  if (!SCREENSHOTS) return
  for (const colorScheme of ['light', 'dark'] as const) {
    for (const [name, size] of [
      ['desktop', VIEWPORTS.desktop.viewport],
      ['phone', VIEWPORTS.phone.viewport],
    ] as const) {
      await page.emulateMedia({ colorScheme })
      await page.setViewportSize(size)
      await page.screenshot({ path: join(SCREENSHOTS, `${prefix}-${name}-${colorScheme}.png`) })
    }
  }
  await page.emulateMedia({ colorScheme: 'light' })
  await page.setViewportSize(VIEWPORTS.desktop.viewport)
}

interface ApiNote {
  _id: string
  title: string
  content: string
  tags: string[]
  isPinned: boolean
  updatedOn: string
}

interface Device {
  context: BrowserContext
  page: Page
  record: PageRecord
}

const card = (page: Page, title: string) =>
  page.locator('article.note', { has: page.getByRole('heading', { name: title, exact: true }) })
const cardTitles = async (page: Page) => (await page.locator('article.note h3').allInnerTexts()).sort()

async function signIn(page: Page, base: string, email: string): Promise<void> {
  await page.goto(`${base}/sign-in`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Your notes' }).waitFor({ state: 'attached' })
}

/** Opens the note's editor, writes `content`, and saves. */
async function editIn(page: Page, title: string, content: string): Promise<void> {
  await card(page, title).getByRole('button', { name: title, exact: true }).click()
  const editor = page.getByRole('dialog', { name: 'Edit note' })
  await editor.getByLabel('Content', { exact: true }).fill(content)
  await page.keyboard.press('Control+Enter')
  await editor.waitFor({ state: 'detached' })
}

const replicaNames = (page: Page) =>
  page.evaluate(async () => {
    const w = globalThis as unknown as PageWindow & { indexedDB: { databases(): Promise<Array<{ name?: string }>> } }
    return (await w.indexedDB.databases()).map((d) => d.name ?? '').filter((name) => name.startsWith('notes-service.'))
  })

describe('the web app live and offline, on two devices', () => {
  const browser = suiteChromium()

  for (const storeKind of storeKinds()) {
    describe(`on ${storeKind}`, () => {
      let server: WebServer
      let a: Device
      let b: Device
      let token: string
      let email: string

      const call = async (method: string, path: string, body?: unknown) => {
        const answer = await apiCall(server.base, token, method, path, body)
        assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.json)}`)
        return answer.json as Record<string, unknown>
      }
      const add = async (title: string, content: string) =>
        (await call('POST', '/add-note', { title, content, tags: [] })).note as ApiNote
      const listing = async () => (await call('GET', '/get-all-notes')).notes as ApiNote[]

      before(async () => {
        server = await startWebServer(storeKind)
        a = await openPage(browser(), { ...VIEWPORTS.desktop, colorScheme: 'light' })
        b = await openPage(browser(), { ...VIEWPORTS.desktop, colorScheme: 'light' })
        email = uniqueEmail(`web-sync-${storeKind}`)
        await signUp(a.page, server.base, 'Ada Lovelace', email)
        token = (await tokenOf(a.page))!
        await signIn(b.page, server.base, email)
      })
      after(async () => {
        await a?.context.close()
        await b?.context.close()
        await server?.close()
      })

      it('shows a note added through the API and an edit made on one device on the other within a second, without a reload or redrawing the other cards', async () => {
        await add('Bookmarks', 'unchanged')
        await add('Groceries', 'milk')
        await card(a.page, 'Groceries').waitFor()
        await card(b.page, 'Groceries').waitFor()
        // Markers on the page and on another card's element: a reload, or the grid drawn anew, would lose them.
        await b.page.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 1))
        await card(b.page, 'Bookmarks').evaluate((element) => ((element as unknown as { kept: boolean }).kept = true))
        await editIn(a.page, 'Groceries', 'milk, eggs')
        await a.page.getByRole('status').filter({ hasText: 'Note saved' }).waitFor()
        // A generous liveness bound: the edit is committed when A's save is answered.
        await card(b.page, 'Groceries').getByText('milk, eggs').waitFor({ timeout: 1000 })
        assert.equal(await b.page.evaluate(() => (globalThis as unknown as { marker?: number }).marker), 1, 'no reload')
        assert.equal(
          await card(b.page, 'Bookmarks').evaluate((element) => (element as unknown as { kept?: boolean }).kept),
          true,
          'the other card is the same element',
        )
      })

      it('keeps the text typed in the editor when its note changes on the other device, and the save offers the choice', async () => {
        await card(b.page, 'Bookmarks').getByRole('button', { name: 'Bookmarks', exact: true }).click()
        const editor = b.page.getByRole('dialog', { name: 'Edit note' })
        await editor.getByLabel('Content', { exact: true }).fill('typed on B')
        await editIn(a.page, 'Bookmarks', 'saved on A')
        // The card behind the editor follows; the editor keeps what was typed.
        await card(b.page, 'Bookmarks').getByText('saved on A').waitFor()
        assert.equal(await editor.getByLabel('Content', { exact: true }).inputValue(), 'typed on B')
        await b.page.keyboard.press('Control+Enter')
        const choice = editor.getByRole('group', { name: 'Choose a version' })
        await choice.waitFor()
        assert.equal(
          await choice.getByRole('region', { name: 'Saved elsewhere' }).locator('pre').innerText(),
          'saved on A',
        )
        await choice.getByRole('button', { name: 'Keep mine' }).click()
        await editor.waitFor({ state: 'detached' })
        await card(a.page, 'Bookmarks').getByText('typed on B').waitFor()
      })

      it('keeps working offline and, back online, both devices show the same notes with both versions of the one changed on both', async () => {
        await add('Plan', 'first plan')
        await add('Letter', 'first letter')
        await card(b.page, 'Letter').waitFor()
        await card(a.page, 'Letter').waitFor()

        await b.context.setOffline(true)
        const indicator = b.page.locator('.sync-status')
        await indicator.filter({ hasText: 'Offline' }).waitFor()
        await editIn(b.page, 'Plan', 'plan written offline')
        await b.page
          .getByRole('status')
          .filter({ hasText: 'Note saved on this device; it is sent when you are back online' })
          .waitFor()
        await editIn(b.page, 'Letter', 'letter written offline')
        await b.page.getByRole('button', { name: 'New note' }).click()
        const editor = b.page.getByRole('dialog', { name: 'New note' })
        await editor.getByLabel('Title').fill('Written offline')
        await editor.getByLabel('Content', { exact: true }).fill('a new note with no network')
        await b.page.keyboard.press('Control+Enter')
        await editor.waitFor({ state: 'detached' })
        await card(b.page, 'Written offline').waitFor()
        assert.equal((await indicator.innerText()).trim(), 'Offline · 3 changes waiting to be sent')
        // The other device edits one of the same notes meanwhile.
        await editIn(a.page, 'Plan', 'plan written online')

        // Search works on the replica, literal and as a pattern, and refuses a pattern that could hang.
        await b.page.getByRole('searchbox', { name: 'Search notes' }).fill('OFFLINE')
        await b.page.getByRole('status').filter({ hasText: '3 notes match' }).waitFor()
        assert.deepEqual(await cardTitles(b.page), ['Letter', 'Plan', 'Written offline'])
        await b.page.getByRole('button', { name: 'Regular expression' }).click()
        await b.page.getByRole('searchbox', { name: 'Search notes' }).fill('^let+er')
        await b.page.getByRole('status').filter({ hasText: '1 note matches' }).waitFor()
        await b.page.getByRole('searchbox', { name: 'Search notes' }).fill('(a+)+$')
        await b.page
          .getByRole('alert')
          .filter({ hasText: 'This pattern could take too long to search on this device' })
          .waitFor()
        await b.page.getByRole('button', { name: 'Regular expression' }).click()
        await b.page.getByRole('searchbox', { name: 'Search notes' }).fill('')
        await card(b.page, 'Groceries').waitFor()

        // A reload with no network: the app from the service worker, the notes and the waiting
        // changes from IndexedDB.
        await b.page.waitForFunction(
          () => (globalThis as unknown as PageWindow).navigator.serviceWorker.controller !== null,
        )
        await b.page.reload()
        await card(b.page, 'Written offline').waitFor()
        await card(b.page, 'Plan').getByText('plan written offline').waitFor()
        assert.equal((await indicator.innerText()).trim(), 'Offline · 3 changes waiting to be sent')

        await screenshots(b.page, 'offline')

        await b.context.setOffline(false)
        await indicator.waitFor({ state: 'detached' })
        const expected = ['Bookmarks', 'Groceries', 'Letter', 'Plan', 'Plan (conflict)', 'Written offline']
        for (const device of [a, b])
          await eventually(
            'the device shows the server’s notes',
            async () => JSON.stringify(await cardTitles(device.page)) === JSON.stringify(expected),
            5000,
          )
        const notes = await listing()
        assert.deepEqual(notes.map((n) => n.title).sort(), expected)
        const content = (title: string) => notes.find((n) => n.title === title)?.content
        assert.equal(content('Plan'), 'plan written online', 'the other device’s version stays')
        assert.equal(content('Plan (conflict)'), 'plan written offline', 'and the offline one is kept beside it')
        assert.equal(content('Letter'), 'letter written offline')
        assert.equal(content('Written offline'), 'a new note with no network')
      })

      it('shows the choice when an outbox change meets a newer version of the note open in the editor', async () => {
        const note = await add('Open note', 'as it was')
        await card(b.page, 'Open note').waitFor()
        await b.context.setOffline(true)
        await editIn(b.page, 'Open note', 'mine, offline')
        await card(b.page, 'Open note').getByRole('button', { name: 'Open note', exact: true }).click()
        const editor = b.page.getByRole('dialog', { name: 'Edit note' })
        await editor.getByLabel('Content', { exact: true }).fill('mine, offline, and more')
        await call('PUT', `/edit-note/${note._id}`, { content: 'theirs, online' })
        await b.context.setOffline(false)
        const choice = editor.getByRole('group', { name: 'Choose a version' })
        await choice.waitFor()
        assert.equal(
          await choice.getByRole('region', { name: 'Your version' }).locator('pre').innerText(),
          'mine, offline, and more',
        )
        assert.equal(
          await choice.getByRole('region', { name: 'Saved elsewhere' }).locator('pre').innerText(),
          'theirs, online',
        )
        assert.equal((await b.page.locator('.sync-status').innerText()).trim(), '1 change waiting for your choice')
        await screenshots(b.page, 'outbox-conflict')
        await choice.getByRole('button', { name: 'Keep both' }).click()
        await editor.waitFor({ state: 'detached' })
        await eventually('both versions on the server', async () => {
          const contents = (await listing()).filter((n) => n.title === 'Open note').map((n) => n.content)
          return JSON.stringify(contents.sort()) === JSON.stringify(['mine, offline, and more', 'theirs, online'])
        })
        await eventually('no change waits', async () => (await b.page.locator('.sync-status').count()) === 0)
      })

      it('keeps changes made offline when the session ends elsewhere, and sends them once the same person signs in again', async () => {
        await b.context.setOffline(true)
        await editIn(b.page, 'Letter', 'kept across sessions')
        await call('POST', '/logout-everywhere')
        await b.context.setOffline(false)
        await b.page.waitForURL(`${server.base}/sign-in`)
        await b.page
          .getByText('Changes made offline stay on this device and are sent when you sign in again with this account.')
          .waitFor()
        await b.page.getByLabel('Password').fill(PASSWORD)
        await b.page.getByRole('button', { name: 'Sign in' }).click()
        const login = await apiCall(server.base, '', 'POST', '/login', { email, password: PASSWORD })
        token = (login.json as { accessToken: string }).accessToken
        await eventually(
          'the change sent',
          async () => (await listing()).find((n) => n.title === 'Letter')?.content === 'kept across sessions',
        )
        await b.page.locator('.sync-status').waitFor({ state: 'detached' })
      })

      it('asks before signing out with changes waiting, and signing out deletes the replica and the outbox from the browser', async () => {
        const { _id: userId } = (await call('GET', '/get-user')).user as { _id: string }
        assert.deepEqual(
          await replicaNames(b.page),
          [`notes-service.replica.${userId}`],
          'one database, named by the account',
        )
        await b.context.setOffline(true)
        await editIn(b.page, 'Letter', 'one more offline change')
        b.page.once('dialog', (dialog) => {
          assert.match(
            dialog.message(),
            /^1 change made offline has not been sent yet\. Signing out deletes it from this device\. Sign out anyway\?$/,
          )
          void dialog.dismiss()
        })
        await b.page.getByRole('button', { name: 'Sign out' }).click()
        assert.equal(b.page.url(), `${server.base}/`, 'still signed in')
        b.page.once('dialog', (dialog) => void dialog.accept())
        await b.page.getByRole('button', { name: 'Sign out' }).click()
        await b.page.waitForURL(`${server.base}/sign-in`)
        await eventually('the replica deleted', async () => (await replicaNames(b.page)).length === 0)
        const kept = await b.page.evaluate(() =>
          Object.keys((globalThis as unknown as PageWindow).localStorage).filter(
            (k) => k.startsWith('notes-service.replica') || k.startsWith('notes-service.unsent'),
          ),
        )
        assert.deepEqual(kept, [])
        await b.context.setOffline(false)
        assert.equal(
          (await listing()).find((n) => n.title === 'Letter')?.content,
          'kept across sessions',
          'the discarded change was never sent',
        )
      })

      it('loaded nothing from another host, broke no CSP rule and threw nothing', () => {
        assertClean(a.record)
        assert.deepEqual(b.record.outside, [])
        assert.deepEqual(b.record.cspViolations, [])
        assert.deepEqual(b.record.errors, [])
      })
    })
  }
})
