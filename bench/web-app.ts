// The web app's speed in Chromium. Each account is seeded straight into SQLite (as the main bench
// does); the service is the built one, started as `npm start` starts it; the browser is Debian's
// Chromium, as in the tests, at 1280×800.
// - `npm run bench:web`: for one account of 1 000 and one of 10 000 notes, the time from
//   navigation to the first note card on screen, and the long tasks (over 50 ms, the browser's
//   own Long Tasks API) while scrolling through the list and while typing a search. Prints a
//   Markdown table; docs/web-app.md keeps the figures of a run. They depend on the machine and
//   its load: the targets are 500 ms (1 000 notes), 1 500 ms (10 000) and no long task over
//   200 ms.
// - `npm run bench:web-offline` (--offline): one account with 1 000 notes, a first visit online
//   that installs the service worker and fills the IndexedDB replica, then reloads with the
//   network off (Playwright's context.setOffline, which Chromium applies to the page and its
//   worker alike), and the same reloads online for comparison. Measured from navigation (the new
//   document's time origin): the first note card in the DOM, and the moment the page holds all
//   1 000 notes (the tag filter's counts add up to the seeded notes with a tag, which only the
//   whole list gives). Prints a Markdown table and writes it to bench/results/web-offline.md.
//   Target: all 1 000 notes shown in under 1 s offline.
// Both build first.
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { publicUser } from '../src/services/accounts.js'
import { createTokenService } from '../src/services/tokens.js'
import type { NoteRecord } from '../src/store/types.js'
import { launchChromium } from '../test/support/browser.js'
import type { PageWindow } from '../test/support/page-globals.js'
import { median } from './measure.js'
import { type ServiceProcess, startService } from './processes.js'
import { SqliteSeeder, makeNotes, makeUser } from './seed.js'

const SIZES = [1000, 10_000]
const LOADS = Number(process.env.LOADS ?? 5)
const OFFLINE_NOTES = 1000
const RELOADS = Number(process.env.RELOADS ?? 9)
const VIEWPORT = { width: 1280, height: 800 }

const ms = (n: number) => `${Math.round(n)} ms`

/** The built service on a fresh data directory holding one account with `count` notes, and a token of that account. */
async function seededService(
  name: string,
  count: number,
): Promise<{ service: ServiceProcess; token: string; notes: NoteRecord[]; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-bench-web-'))
  try {
    const seeder = new SqliteSeeder(dataDir)
    await seeder.migrate()
    const user = makeUser(name)
    await seeder.insertUsers([user])
    const notes = [...makeNotes(user._id, count)]
    await seeder.insertNotes(notes)
    await seeder.close()
    const secret = randomBytes(32).toString('hex')
    const token = createTokenService(secret).issue(publicUser(user))
    const service = await startService({ dataDir, secret })
    const stop = async () => {
      await service.stop()
      rmSync(dataDir, { recursive: true, force: true })
    }
    return { service, token, notes, stop }
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true })
    throw err
  }
}

// Many notes: first visit, reloads, long tasks.

type Probe = PageWindow & { __shown?: number; __longTasks: number[] }

/** Installed before the app runs: when the first card appears, and every long task. */
function probes(token: string): void {
  const w = globalThis as unknown as Probe & {
    MutationObserver: new (callback: () => void) => {
      observe(target: unknown, options: object): void
      disconnect(): void
    }
    PerformanceObserver: new (callback: (list: { getEntries(): Array<{ duration: number }> }) => void) => {
      observe(options: object): void
    }
  }
  w.localStorage.setItem('notes-service.token', token)
  w.__longTasks = []
  new w.PerformanceObserver((list) => {
    for (const entry of list.getEntries()) w.__longTasks.push(entry.duration)
  }).observe({ type: 'longtask', buffered: true })
  const observer = new w.MutationObserver(() => {
    if (w.__shown === undefined && w.document.querySelector('article.note')) {
      w.__shown = w.performance.now()
      observer.disconnect()
    }
  })
  // The document itself: an init script runs before there is a documentElement.
  observer.observe(w.document, { childList: true, subtree: true })
}

async function shownAfterNavigation(page: Page, url: string): Promise<number> {
  await page.goto(url)
  await page.waitForFunction(() => (globalThis as unknown as Probe).__shown !== undefined, undefined, {
    timeout: 30_000,
  })
  return page.evaluate(() => (globalThis as unknown as Probe).__shown ?? -1)
}

async function takeLongTasks(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const w = globalThis as unknown as Probe
    const tasks = w.__longTasks
    w.__longTasks = []
    return tasks
  })
}

interface Figures {
  notes: number
  cold: number
  warm: number[]
  scroll: number[]
  typing: number[]
  listingBytes: number
}

async function measure(browser: Browser, count: number): Promise<Figures> {
  const { service, token, stop } = await seededService(`web-${count}`, count)
  let context = await browser.newContext({ viewport: VIEWPORT })
  try {
    const listing = await fetch(`${service.url}/get-all-notes`, { headers: { authorization: `Bearer ${token}` } })
    const listingBytes = (await listing.arrayBuffer()).byteLength
    // A first visit each time: a new context (empty cache) of a browser already running, to a
    // service that has served once (the first page a fresh browser or process shows costs more).
    const warmUp = await context.newPage()
    await warmUp.goto(`${service.url}/sign-in`)
    const firstVisits: number[] = []
    for (let i = 0; i < 3; i++) {
      await context.close()
      context = await browser.newContext({ viewport: VIEWPORT })
      await context.addInitScript(probes, token)
      firstVisits.push(await shownAfterNavigation(await context.newPage(), `${service.url}/`))
    }
    const cold = median(firstVisits)
    const page = context.pages()[0]!
    const warm: number[] = []
    for (let i = 0; i < LOADS; i++) warm.push(await shownAfterNavigation(page, `${service.url}/`))

    // Scrolling: the wheel, 50 steps of 800 px, then to the end and back to the top.
    await page.waitForTimeout(500)
    await takeLongTasks(page)
    await page.mouse.move(640, 500)
    for (let i = 0; i < 50; i++) {
      await page.mouse.wheel(0, 800)
      await page.waitForTimeout(16)
    }
    await page.keyboard.press('End')
    await page.waitForTimeout(300)
    await page.keyboard.press('Home')
    await page.waitForTimeout(500)
    const scroll = await takeLongTasks(page)

    // Typing a search slowly enough (a key every 300 ms, past the 250 ms debounce) that every
    // prefix is searched: "n" to "note" match every note (the whole list comes back each time),
    // "note 1" about a ninth of them.
    await page.getByRole('searchbox', { name: 'Search notes' }).click()
    await page.keyboard.type('note 1', { delay: 300 })
    await page.getByText(/^[\d,]+ notes? match(es)?$/).waitFor({ timeout: 30_000 })
    await page.waitForTimeout(500)
    const typing = await takeLongTasks(page)
    return { notes: count, cold, warm, scroll, typing, listingBytes }
  } finally {
    await context.close()
    await stop()
  }
}

async function manyNotes(browser: Browser): Promise<void> {
  const rows: Figures[] = []
  for (const count of SIZES) rows.push(await measure(browser, count))
  const tasks = (list: number[]) => (list.length ? `${list.length}, longest ${ms(Math.max(...list))}` : 'none')
  console.log(`\n${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; ${new Date().toISOString()}\n`)
  console.log(
    '| notes | get-all-notes body | navigation → notes shown, first visit (median of 3) | reloads (median, max of 5) | long tasks scrolling | long tasks typing a search |',
  )
  console.log('|---|---|---|---|---|---|')
  for (const r of rows) {
    console.log(
      `| ${r.notes.toLocaleString('en')} | ${(r.listingBytes / 1e6).toFixed(1)} MB | ${ms(r.cold)} | ${ms(median(r.warm))}, ${ms(Math.max(...r.warm))} | ${tasks(r.scroll)} | ${tasks(r.typing)} |`,
    )
  }
}

// Offline: reloads with no network.

type OfflineProbe = PageWindow & { __shown?: number; __whole?: number }

/** Installed before the app runs: when the first card appears, and when the tag counts add up to `tagged`. */
function offlineProbes({ token, tagged }: { token: string; tagged: number }): void {
  const w = globalThis as unknown as OfflineProbe & {
    MutationObserver: new (callback: () => void) => {
      observe(target: unknown, options: object): void
      disconnect(): void
    }
  }
  w.localStorage.setItem('notes-service.token', token)
  const observer = new w.MutationObserver(() => {
    const now = w.performance.now()
    if (w.__shown === undefined && w.document.querySelector('article.note')) w.__shown = now
    if (w.__whole === undefined) {
      let sum = 0
      for (const count of Array.from(w.document.querySelectorAll('.filter-chip .count')))
        sum += Number(count.textContent)
      if (sum === tagged) w.__whole = now
    }
    if (w.__shown !== undefined && w.__whole !== undefined) observer.disconnect()
  })
  observer.observe(w.document, { childList: true, subtree: true, characterData: true })
}

async function reload(page: Page): Promise<{ shown: number; whole: number }> {
  await page.reload()
  await page.waitForFunction(
    () =>
      (globalThis as unknown as OfflineProbe).__whole !== undefined &&
      (globalThis as unknown as OfflineProbe).__shown !== undefined,
    undefined,
    {
      timeout: 30_000,
    },
  )
  return page.evaluate(() => ({
    shown: (globalThis as unknown as OfflineProbe).__shown ?? -1,
    whole: (globalThis as unknown as OfflineProbe).__whole ?? -1,
  }))
}

async function offline(browser: Browser): Promise<void> {
  const { service, token, notes, stop } = await seededService('offline', OFFLINE_NOTES)
  const tagged = notes.filter((note) => note.tags.length > 0).length
  const context = await browser.newContext({ viewport: VIEWPORT })
  try {
    await context.addInitScript(offlineProbes, { token, tagged })
    const page = await context.newPage()
    // The visit online: the worker installs (precaching the app shell), the replica fills.
    await page.goto(`${service.url}/`)
    await page.waitForFunction(() => (globalThis as unknown as OfflineProbe).__whole !== undefined, undefined, {
      timeout: 30_000,
    })
    await page.waitForFunction(() => {
      const w = globalThis as unknown as PageWindow
      return w.navigator.serviceWorker.controller !== null && w.localStorage.getItem('notes-service.replica') === '1'
    })
    const online: Array<{ shown: number; whole: number }> = []
    for (let i = 0; i < RELOADS; i++) online.push(await reload(page))
    await context.setOffline(true)
    const offline: Array<{ shown: number; whole: number }> = []
    for (let i = 0; i < RELOADS; i++) offline.push(await reload(page))
    const failed = await page.evaluate(() =>
      (globalThis as unknown as PageWindow)
        .fetch('/get-all-notes')
        .then(() => false)
        .catch(() => true),
    )
    if (!failed) throw new Error('the page still reached the service: not offline')

    const summary = (list: number[]) => `${ms(median(list))} (${ms(Math.min(...list))}–${ms(Math.max(...list))})`
    const lines = [
      `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; ${OFFLINE_NOTES.toLocaleString('en')} notes; ${RELOADS} reloads each, median (min–max)`,
      '',
      '| reload | navigation → first note card | navigation → all 1 000 notes held |',
      '|---|---|---|',
      `| online (service worker, replica, then the stream) | ${summary(online.map((r) => r.shown))} | ${summary(online.map((r) => r.whole))} |`,
      `| offline (\`context.setOffline(true)\`) | ${summary(offline.map((r) => r.shown))} | ${summary(offline.map((r) => r.whole))} |`,
    ]
    const text = lines.join('\n')
    console.log(`\n${text}\n`)
    const results = join(process.cwd(), 'bench', 'results')
    mkdirSync(results, { recursive: true })
    writeFileSync(
      join(results, 'web-offline.md'),
      `# Web app: reload with no network\n\n\`npm run bench:web-offline\`\n\n${text}\n`,
    )
  } finally {
    await context.close()
    await stop()
  }
}

const browser = await launchChromium()
try {
  await (process.argv.includes('--offline') ? offline(browser) : manyNotes(browser))
} finally {
  await browser.close()
}
