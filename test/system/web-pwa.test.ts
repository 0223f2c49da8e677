// The web app as a Progressive Web App, in Chromium: its manifest is valid and the app installable
// (the DevTools protocol's own checks); after one visit online, a reload with no network shows the
// app (the sign-in page, or the notes page once signed in), never Chromium's offline error, and
// the worker keeps no API answer; a new build deployed on the same origin reaches the open pages
// through "A new version is ready · Reload", keeps the open editor's text across the reload, and
// until then the old page keeps loading its own build's chunks. WEB_SCREENSHOTS=DIR saves the
// update prompt, light and dark, desktop and phone.
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { BrowserContext, Page } from 'playwright-core'
import { chromium } from 'playwright-core'
import { CHROMIUM, CHROMIUM_ARGS, isLoopback, openPage } from '../support/browser.js'
import type { PageWindow } from '../support/page-globals.js'
import { tempDir } from '../support/temp.js'
import { type SwappableServer, buildVariant, startSwappableServer } from '../support/web-builds.js'
import { PASSWORD, apiCall, signUp, suiteChromium, tokenOf } from '../support/web-flows.js'
import { VIEWPORTS, WEB_ROOT, ensureBuilt } from '../support/web.js'

const SCREENSHOTS = process.env.WEB_SCREENSHOTS

/** Until the service worker controls the page (it claims the page that installed it). */
async function controlled(page: Page): Promise<void> {
  await page.waitForFunction(() => (globalThis as unknown as PageWindow).navigator.serviceWorker.controller !== null)
}

async function createAccount(base: string, email: string): Promise<string> {
  const { status, json } = await apiCall(base, '', 'POST', '/create-account', {
    fullName: 'Ada Lovelace',
    email,
    password: PASSWORD,
  })
  assert.equal(status, 200)
  return (json as { accessToken: string }).accessToken
}

/** A context signed in with `token`, as a kept token starts the app. */
async function signedIn(context: BrowserContext, token: string): Promise<void> {
  await context.addInitScript((kept) => {
    const storage = (globalThis as unknown as PageWindow).localStorage
    if (!storage.getItem('notes-service.token')) storage.setItem('notes-service.token', kept)
  }, token)
}

/** The width and height a PNG's IHDR chunk gives. */
function pngSize(bytes: Buffer): [number, number] {
  assert.equal(bytes.subarray(1, 4).toString('latin1'), 'PNG')
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)]
}

describe('the web app as a Progressive Web App', () => {
  const browser = suiteChromium()
  let server: SwappableServer
  before(async () => {
    ensureBuilt()
    server = await startSwappableServer(WEB_ROOT)
  })
  after(async () => {
    await server?.close()
  })

  it('has a valid manifest with its icons, and Chromium finds the app installable', async () => {
    // A profile on disk: Chromium installs nothing from an incognito context, which a new context is.
    const profile = tempDir('notes-profile-')
    const context = await chromium.launchPersistentContext(profile.path, {
      executablePath: CHROMIUM,
      args: CHROMIUM_ARGS,
    })
    const record = { outside: [] as string[], cspViolations: [] as string[], errors: [] as string[] }
    try {
      const page = context.pages()[0] ?? (await context.newPage())
      page.on('request', (request) => {
        if (!isLoopback(new URL(request.url()))) record.outside.push(request.url())
      })
      page.on('pageerror', (error) => record.errors.push(error.message))
      page.on('console', (message) => {
        if (/Content Security Policy|Trusted/i.test(message.text())) record.cspViolations.push(message.text())
      })
      await page.goto(`${server.base}/sign-in`)
      await controlled(page)
      const cdp = await context.newCDPSession(page)
      const manifest = (await cdp.send('Page.getAppManifest')) as { url: string; errors: unknown[]; data: string }
      assert.equal(manifest.url, `${server.base}/manifest.webmanifest`)
      assert.deepEqual(manifest.errors, [])
      const data = JSON.parse(manifest.data) as Record<string, unknown> & {
        icons: Array<{ src: string; sizes: string; type: string; purpose: string }>
      }
      assert.equal(data.name, 'Notes')
      assert.equal(data.short_name, 'Notes')
      assert.equal(data.start_url, '/')
      assert.equal(data.scope, '/')
      assert.equal(data.display, 'standalone')
      const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as {
        installabilityErrors: unknown[]
      }
      assert.deepEqual(installabilityErrors, [])
      const purposes = new Set(data.icons.map((icon) => `${icon.type} ${icon.sizes} ${icon.purpose}`))
      for (const wanted of [
        'image/svg+xml any any',
        'image/png 192x192 any',
        'image/png 512x512 any',
        'image/png 512x512 maskable',
      ])
        assert.ok(purposes.has(wanted), wanted)
      for (const icon of data.icons) {
        const res = await fetch(server.base + icon.src)
        assert.equal(res.status, 200, icon.src)
        assert.equal(res.headers.get('content-type')?.split(';')[0], icon.type, icon.src)
        const bytes = Buffer.from(await res.arrayBuffer())
        if (icon.type === 'image/png') assert.deepEqual(pngSize(bytes), icon.sizes.split('x').map(Number), icon.src)
      }
      assert.deepEqual(record.outside, [])
      assert.deepEqual(record.cspViolations, [])
      assert.deepEqual(record.errors, [])
    } finally {
      await context.close()
      profile.remove()
    }
  })

  it('opens with no network after one visit: the sign-in page, then the notes page; no API answer is kept', async () => {
    const { context, page, record } = await openPage(browser())
    try {
      await page.goto(`${server.base}/sign-in`)
      await page.getByRole('heading', { name: 'Sign in' }).waitFor()
      await controlled(page)

      await context.setOffline(true)
      await page.reload()
      await page.getByRole('heading', { name: 'Sign in' }).waitFor()
      await page.goto(`${server.base}/sign-up`)
      await page.getByRole('heading', { name: 'Create your account' }).waitFor()

      await context.setOffline(false)
      await signUp(page, server.base, 'Ada Lovelace', 'offline@example.com')
      const token = await tokenOf(page)
      assert.ok(token)
      await apiCall(server.base, token, 'POST', '/add-note', {
        title: 'Kept for the train',
        content: 'Platform 4.',
        tags: [],
      })
      await page.reload()
      await page.getByRole('heading', { name: 'Kept for the train' }).waitFor()
      await page.waitForFunction(
        () => (globalThis as unknown as PageWindow).localStorage.getItem('notes-service.replica') === '1',
      )
      await context.setOffline(true)
      await page.reload()
      await page.getByRole('heading', { name: 'Your notes' }).waitFor({ state: 'attached' })
      // The shell from the worker, the note from the replica.
      await page.getByRole('heading', { name: 'Kept for the train' }).waitFor()
      // A page of the app other than the one visited, and its lazy chunk, from the worker too.
      await page.goto(`${server.base}/trash`)
      await page.getByRole('heading', { name: 'Trash', level: 1 }).waitFor()

      const kept = await page.evaluate(async () => {
        const w = globalThis as unknown as PageWindow
        const urls: string[] = []
        for (const name of await w.caches.keys())
          for (const request of await (await w.caches.open(name)).keys()) urls.push(new URL(request.url).pathname)
        return urls
      })
      assert.ok(kept.includes('/'), 'the app shell is kept')
      for (const path of kept)
        assert.match(
          path,
          /^\/(assets\/[\w.-]+|icons\/[\w.-]+|favicon\.svg|manifest\.webmanifest)?$/,
          `only the app shell is kept: ${path}`,
        )
      const listing = await page.evaluate(() =>
        (globalThis as unknown as PageWindow)
          .fetch('/get-all-notes')
          .then((res) => `answered ${res.status}`)
          .catch(() => 'failed'),
      )
      assert.equal(listing, 'failed', 'the API is asked, never answered from a cache')
      assert.deepEqual(record.outside, [])
      assert.deepEqual(record.cspViolations, [])
    } finally {
      await context.close()
    }
  })

  describe('a new build deployed', () => {
    let buildB: Awaited<ReturnType<typeof buildVariant>>
    before(async () => {
      buildB = await buildVariant('B')
      if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true })
    })
    after(() => buildB?.remove())

    it('reaches every open page through "A new version is ready · Reload", keeping the editor\'s text', async () => {
      await server.serve(WEB_ROOT)
      const token = await createAccount(server.base, 'update@example.com')
      const { json } = await apiCall(server.base, token, 'POST', '/add-note', {
        title: 'Standup',
        content: 'Shipped the search fix.',
        tags: [],
      })
      const noteId = (json as { note: { _id: string } }).note._id
      const opened: Array<{ context: BrowserContext; page: Page; name: string }> = []
      try {
        for (const viewport of ['desktop', 'phone'] as const) {
          for (const colorScheme of ['light', 'dark'] as const) {
            const { context, page } = await openPage(browser(), {
              ...VIEWPORTS[viewport],
              deviceScaleFactor: 1,
              colorScheme,
              reducedMotion: 'reduce',
            })
            await signedIn(context, token)
            await page.goto(`${server.base}/`)
            await page.getByRole('heading', { name: 'Standup' }).waitFor()
            await controlled(page)
            opened.push({ context, page, name: `update-${viewport}-${colorScheme}` })
          }
        }
        const [first, second] = opened
        assert.ok(first && second)
        // A second tab of the first browser: one worker for both.
        const tab = await first.context.newPage()
        await tab.goto(`${server.base}/`)
        await tab.getByRole('heading', { name: 'Standup' }).waitFor()

        const typed = 'Shipped the search fix.\n\nAsk Sam about the test data.'
        await tab.getByRole('button', { name: 'Standup', exact: true }).click()
        await tab.getByRole('dialog', { name: 'Edit note' }).getByLabel('Content', { exact: true }).fill(typed)

        await server.serve(buildB.root)
        for (const { page, name } of opened) {
          // What the app does when a tab comes back into view: ask for a new worker.
          await page.evaluate(() =>
            (globalThis as unknown as PageWindow).document.dispatchEvent(new Event('visibilitychange')),
          )
          await page
            .getByRole('status')
            .filter({ hasText: 'A new version is ready' })
            .getByRole('button', { name: 'Reload' })
            .waitFor()
          if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) })
        }

        // Until it reloads, a page stays on its build: its lazy chunks, gone from the server, come
        // from its worker's cache.
        const appChunk = await second.page.evaluate(() =>
          Array.from((globalThis as unknown as PageWindow).document.scripts)
            .map((script) => script.getAttribute('src') ?? '')
            .find((src) => src.startsWith('/assets/app-')),
        )
        assert.equal(
          (await fetch(`${server.base}${appChunk ?? ''}`)).status,
          404,
          "build A's app chunk is gone from the server",
        )
        await second.page.getByRole('link', { name: 'Trash', exact: true }).click()
        await second.page.getByRole('heading', { name: 'Trash', level: 1 }).waitFor()
        const onB = () => (globalThis as unknown as PageWindow).document.documentElement.dataset.build === 'B'
        assert.equal(await second.page.evaluate(onB), false)

        // Reload in one tab moves every tab of that browser to B (one worker serves them all); the
        // tab whose editor was open reopens it with what was typed, not yet saved.
        await first.page
          .getByRole('status')
          .filter({ hasText: 'A new version is ready' })
          .getByRole('button', { name: 'Reload' })
          .click()
        await first.page.waitForFunction(onB)
        await tab.waitForFunction(onB)
        const reopened = tab.getByRole('dialog', { name: 'Edit note' })
        await reopened.getByText('This is what you were writing. It is not saved yet.').waitFor()
        assert.equal(await reopened.getByLabel('Content', { exact: true }).inputValue(), typed)
        await tab.keyboard.press('Control+Enter')
        await reopened.waitFor({ state: 'detached' })
        const listing = await apiCall(server.base, token, 'GET', '/get-all-notes')
        const saved = (listing.json as { notes: Array<{ _id: string; content: string }> }).notes.find(
          (note) => note._id === noteId,
        )
        assert.equal(saved?.content, typed)
        // The other browsers are offered B until they take it.
        assert.equal(await second.page.evaluate(onB), false)
      } finally {
        for (const { context } of opened) await context.close()
        await server.serve(WEB_ROOT)
      }
    })
  })
})
