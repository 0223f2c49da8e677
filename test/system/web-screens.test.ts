// Each screen of the web app (signed out, notes as cards and as a list, editor, search results,
// empty state, account, trash, a note's history, the conflict choice), light and dark, desktop and phone: axe-core finds no serious or critical
// accessibility violation, and nothing is wider than the screen. With WEB_SCREENSHOTS=DIR (`npm run screenshots` writes
// docs/screenshots/) each screen is also saved as a PNG.
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { launchChromium, openPage } from '../support/browser.js'
import type { PageWindow } from '../support/page-globals.js'
import { VIEWPORTS, type ViewportName, type WebServer, seriousAxeViolations, startWebServer } from '../support/web.js'

const SCREENSHOTS = process.env.WEB_SCREENSHOTS

/** Notes that look like a person's: Markdown, tags, two pinned. */
const SAMPLE_NOTES = [
  {
    title: 'Weekly groceries',
    content: '- oat milk\n- eggs\n- **coffee beans**\n- lemons, basil',
    tags: ['home', 'shopping'],
    pin: true,
  },
  {
    title: 'Trip to Lisbon',
    content: 'Flight **TP 1351** on Friday 9:40.\n\n1. Print the boarding passes\n2. Book the tram tour',
    tags: ['travel'],
    pin: true,
    // Earlier states, oldest first, for its history.
    before: [
      { content: 'Flight **TP 1351** on Friday 8:15.\n\n1. Print the boarding passes', tags: ['travel'] },
      { content: 'Flight **TP 1351** on Friday 9:40.\n\n1. Print the boarding passes', tags: ['travel', 'portugal'] },
    ],
  },
  { title: 'Standup notes', content: 'Shipped the *search* fix. Next: the import for large accounts.', tags: ['work'] },
  {
    title: 'Book list',
    content: '> The best way to predict the future is to invent it.\n\n- *The Dispossessed*\n- *Middlemarch*',
    tags: ['reading'],
  },
  {
    title: 'Recipe: shakshuka',
    content: 'Onion, pepper, garlic, cumin; tomatoes 10 min, then eggs, lid on 6 min.',
    tags: ['home', 'cooking'],
  },
  {
    title: 'Ideas for the garden',
    content: 'Raised bed by the fence, `tomatoes` and herbs. Ask about the [allotment](https://example.org).',
    tags: [],
  },
  { title: 'Call the plumber', content: 'Kitchen tap drips. Tuesday after 4pm works.', tags: ['home'] },
  {
    title: 'Quarterly review',
    content: 'Wins: faster search, fewer timeouts.\nRisks: the **import** of large accounts.',
    tags: ['work'],
  },
]

/** Notes in the sample account's trash, deleted in this order. */
const TRASHED = [
  { title: 'Old packing list', content: 'Passport, charger, the blue scarf.' },
  { title: 'Meeting agenda (draft)', content: '1. Budget\n2. Hiring\n3. Anything else' },
  { title: 'Gift ideas', content: 'A pottery class for Sam; the new Le Guin biography.' },
]

/** The note of the conflict screen: as the editor opened it, as typed there, and as saved elsewhere meanwhile. */
const SHARED = {
  title: 'Standup notes',
  opened: 'Shipped the *search* fix. Next: the import for large accounts.',
  mine: 'Shipped the *search* fix. Next: the import for large accounts.\n\nAsk Sam about the test data.',
  theirs: 'Shipped the *search* fix and the retry button. Next: the import for large accounts.',
}

/** The clients the sample account's sessions are opened with, as the account page names them. */
const DESKTOP_CHROME =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const OTHER_CLIENTS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0',
]

async function json(
  base: string,
  path: string,
  body: unknown,
  token?: string,
  userAgent = DESKTOP_CHROME,
): Promise<Record<string, unknown>> {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': userAgent,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  })
  return (await res.json()) as Record<string, unknown>
}

async function send(
  base: string,
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })
  assert.ok(res.ok, `${method} ${path}: ${res.status}`)
  return (await res.json()) as Record<string, unknown>
}

async function account(base: string, fullName: string, email: string): Promise<string> {
  const created = await json(base, '/create-account', { fullName, email, password: 'correct horse battery staple' })
  return created.accessToken as string
}

describe('the screens of the web app', () => {
  let server: WebServer
  let browser: Browser
  let token: string
  let emptyToken: string
  before(async () => {
    server = await startWebServer('sqlite')
    browser = await launchChromium()
    token = await account(server.base, 'Ada Lovelace', 'ada@example.com')
    emptyToken = await account(server.base, 'Grace Hopper', 'grace@example.com')
    for (const note of [...SAMPLE_NOTES].reverse()) {
      const [first, ...later] = [...(note.before ?? []), { content: note.content, tags: note.tags }]
      const { note: saved } = (await json(server.base, '/add-note', { title: note.title, ...first }, token)) as {
        note: { _id: string }
      }
      for (const state of later) {
        // A second apart, as a person's edits are: the history lists them at different times.
        await new Promise((resolve) => setTimeout(resolve, 1100))
        await send(server.base, 'PUT', `/edit-note/${saved._id}`, token, state)
      }
      if (note.pin) {
        await fetch(`${server.base}/update-note-pinned/${saved._id}`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ isPinned: true }),
        })
      }
    }
    for (const note of TRASHED) {
      const { note: saved } = (await json(server.base, '/add-note', note, token)) as { note: { _id: string } }
      await send(server.base, 'DELETE', `/delete-note/${saved._id}`, token)
    }
    for (const userAgent of OTHER_CLIENTS)
      await json(
        server.base,
        '/login',
        { email: 'ada@example.com', password: 'correct horse battery staple' },
        undefined,
        userAgent,
      )
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true })
  })
  after(async () => {
    await browser?.close()
    await server?.close()
  })

  /** The screens, each reached from a fresh page; `ready` waits until it shows what it should. */
  const screens: Array<{
    name: string
    token?: () => string
    path: string
    show: (page: Page) => Promise<void>
    fullPage?: boolean
    /** Puts back what showing it changed on the server, for the screens after it. */
    undo?: () => Promise<void>
  }> = [
    { name: 'sign-in', path: '/sign-in', show: (page) => page.getByRole('heading', { name: 'Sign in' }).waitFor() },
    {
      name: 'sign-up',
      path: '/sign-up',
      show: (page) => page.getByRole('heading', { name: 'Create your account' }).waitFor(),
    },
    {
      name: 'notes',
      token: () => token,
      path: '/',
      show: (page) => page.getByRole('heading', { name: 'Weekly groceries' }).waitFor(),
    },
    {
      name: 'list',
      token: () => token,
      path: '/',
      async show(page) {
        await page.getByRole('button', { name: 'List', exact: true }).click()
        await page.locator('.note-grid.list').getByRole('heading', { name: 'Weekly groceries' }).waitFor()
      },
    },
    {
      name: 'editor',
      token: () => token,
      path: '/',
      async show(page) {
        await page.getByRole('button', { name: 'Trip to Lisbon', exact: true }).click()
        await page.getByRole('dialog', { name: 'Edit note' }).waitFor()
        await page.getByRole('combobox', { name: 'Add a tag' }).fill('ho')
        await page.getByRole('option', { name: 'home' }).waitFor()
      },
    },
    {
      name: 'search',
      token: () => token,
      path: '/',
      async show(page) {
        await page.getByRole('heading', { name: 'Weekly groceries' }).waitFor()
        await page.getByRole('searchbox', { name: 'Search notes' }).fill('import')
        await page.getByText(/^2 notes match$/).waitFor()
      },
    },
    { name: 'empty', token: () => emptyToken, path: '/', show: (page) => page.getByText('No notes yet').waitFor() },
    {
      name: 'account',
      token: () => token,
      path: '/account',
      async show(page) {
        await page.getByRole('list', { name: 'Sessions' }).getByRole('listitem').nth(2).waitFor()
      },
      // Its password and delete sections are below the fold.
      fullPage: true,
    },
    {
      name: 'trash',
      token: () => token,
      path: '/',
      async show(page) {
        await page.getByRole('link', { name: 'Trash', exact: true }).click()
        await page
          .getByRole('list', { name: 'Trash' })
          .getByRole('listitem')
          .nth(TRASHED.length - 1)
          .waitFor()
      },
    },
    {
      name: 'trash-confirm',
      token: () => token,
      path: '/',
      async show(page) {
        await page.getByRole('link', { name: 'Trash', exact: true }).click()
        await page.getByRole('button', { name: 'Empty trash' }).click()
        await page.getByRole('alertdialog', { name: 'Empty the trash?' }).waitFor()
      },
    },
    {
      name: 'trash-empty',
      token: () => emptyToken,
      path: '/',
      async show(page) {
        await page.getByRole('link', { name: 'Trash', exact: true }).click()
        await page.getByText('The trash is empty').waitFor()
      },
    },
    {
      name: 'history',
      token: () => token,
      path: '/',
      async show(page) {
        await page.getByRole('button', { name: 'History of “Trip to Lisbon”' }).click()
        await page
          .getByRole('dialog', { name: 'History of “Trip to Lisbon”' })
          .locator('.diff-lines ins')
          .first()
          .waitFor()
      },
    },
    {
      name: 'conflict',
      token: () => token,
      path: '/',
      async show(page) {
        const { notes } = (await send(server.base, 'GET', '/get-all-notes', token)) as {
          notes: Array<{ _id: string; title: string }>
        }
        const id = notes.find((n) => n.title === SHARED.title)!._id
        await send(server.base, 'PUT', `/edit-note/${id}`, token, { content: SHARED.opened })
        await page.getByRole('button', { name: SHARED.title, exact: true }).click()
        const editor = page.getByRole('dialog', { name: 'Edit note' })
        await editor.getByLabel('Content', { exact: true }).fill(SHARED.mine)
        await send(server.base, 'PUT', `/edit-note/${id}`, token, { content: SHARED.theirs })
        await editor.getByRole('button', { name: 'Save' }).click()
        await editor.getByRole('group', { name: 'Choose a version' }).waitFor()
      },
      async undo() {
        const { notes } = (await send(server.base, 'GET', '/get-all-notes', token)) as {
          notes: Array<{ _id: string; title: string }>
        }
        await send(server.base, 'PUT', `/edit-note/${notes.find((n) => n.title === SHARED.title)!._id}`, token, {
          content: SHARED.opened,
        })
      },
    },
  ]

  for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const screen of screens) {
        it(`${screen.name}, ${viewport}, ${colorScheme}: no serious or critical axe violation, nothing wider than the screen`, async () => {
          const { context, page, record } = await openPage(browser, {
            ...VIEWPORTS[viewport],
            deviceScaleFactor: 1,
            colorScheme,
            reducedMotion: 'reduce',
          })
          try {
            const key = screen.token?.()
            if (key)
              await page.addInitScript(
                (t) => (globalThis as unknown as PageWindow).localStorage.setItem('notes-service.token', t),
                key,
              )
            await page.goto(server.base + screen.path)
            await screen.show(page)
            const violations = await seriousAxeViolations(page)
            assert.deepEqual(violations, [], JSON.stringify(violations, null, 2))
            const overflow = await page.evaluate(() => {
              const w = globalThis as unknown as PageWindow & {
                document: { documentElement: { scrollWidth: number; clientWidth: number } }
              }
              return w.document.documentElement.scrollWidth - w.document.documentElement.clientWidth
            })
            assert.equal(overflow, 0, 'no horizontal scrolling')
            assert.deepEqual([...record.outside, ...record.cspViolations, ...record.errors], [])
            if (SCREENSHOTS)
              await page.screenshot({
                path: join(SCREENSHOTS, `${screen.name}-${viewport}-${colorScheme}.png`),
                fullPage: screen.fullPage ?? false,
              })
          } finally {
            await context.close()
            await screen.undo?.()
          }
        })
      }
    }
  }
})
