// What the web app's browser tests do again and again: one Chromium for a suite, calling the API
// beside the page, signing up through the page, reading the page's alert, and checking that a
// page stayed clean (nothing loaded from another host, no CSP violation, no uncaught error, no
// failed request).
import assert from 'node:assert/strict'
import { after, before } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { type PageRecord, launchChromium } from './browser.js'
import type { PageWindow } from './page-globals.js'

export const PASSWORD = 'correct horse battery staple'

export async function apiCall(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(base + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  })
  const text = await res.text()
  let json: unknown = text
  try {
    json = text ? (JSON.parse(text) as unknown) : undefined
  } catch {
    // the bare 401's "Unauthorized" stays text
  }
  return { status: res.status, json }
}

export const tokenOf = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as PageWindow).localStorage.getItem('notes-service.token'))

export async function signUp(page: Page, base: string, fullName: string, email: string): Promise<void> {
  await page.goto(`${base}/sign-up`)
  await page.getByLabel('Full name').fill(fullName)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.getByRole('heading', { name: 'Your notes' }).waitFor({ state: 'attached' })
}

export async function alertText(page: Page): Promise<string> {
  const alert = page.getByRole('alert').first()
  await alert.waitFor()
  return (await alert.innerText()).trim()
}

/** The change feed's requests, which the app retries by design while the service restarts. */
const FEED = /\/(get-changes|stream-changes)(\?|$)/

export function assertClean(record: PageRecord): void {
  assert.deepEqual(record.outside, [], 'no request left loopback')
  assert.deepEqual(record.cspViolations, [], 'no CSP violation')
  assert.deepEqual(record.errors, [], 'no uncaught error')
  assert.deepEqual(
    record.failed.filter((url) => !FEED.test(new URL(url).pathname + new URL(url).search)),
    [],
    'no request failed',
  )
}

/**
 * Keeps the page from learning of changes made elsewhere (the change feed and its stream are held
 * unanswered), for tests of what happens when a change meets a note changed meanwhile; reloads,
 * so the stream open until now is closed. The returned function lets the feed through again, and
 * reloads unless told not to.
 */
export async function holdLiveUpdates(page: Page): Promise<(options?: { reload: boolean }) => Promise<void>> {
  const hold = () => undefined
  await page.route(FEED, hold)
  await page.reload()
  await page.getByRole('heading', { name: 'Your notes' }).waitFor({ state: 'attached' })
  return async ({ reload } = { reload: true }) => {
    await page.unroute(FEED, hold)
    if (reload) await page.reload()
  }
}

/** Chromium for the enclosing suite: launched before its tests, closed after them. */
export function suiteChromium(): () => Browser {
  let browser: Browser | undefined
  before(async () => {
    browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
  })
  return () => {
    if (!browser) throw new Error('Chromium is not running (used outside a test?)')
    return browser
  }
}
