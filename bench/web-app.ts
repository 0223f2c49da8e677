// The web app's speed in Chromium with many notes: for one account of 1 000 and one of
// 10 000 notes (seeded straight into SQLite, as the main bench does), the time from navigation to
// the first note card on screen, and the long tasks (over 50 ms, the browser's own Long Tasks
// API) while scrolling through the list and while typing a search. The service is the built one,
// started as `npm start` starts it; the browser is Debian's Chromium, as in the tests.
// Run: npm run bench:web (it builds first). Prints a Markdown table; docs/web-app.md keeps the
// figures of a run. They depend on the machine and its load: the targets are 500 ms (1 000
// notes), 1 500 ms (10 000) and no long task over 200 ms.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { publicUser } from '../src/services/accounts.js'
import { createTokenService } from '../src/services/tokens.js'
import { launchChromium } from '../test/support/browser.js'
import type { PageWindow } from '../test/support/page-globals.js'
import { median } from './measure.js'
import { startService } from './processes.js'
import { SqliteSeeder, makeNotes, makeUser } from './seed.js'

const SIZES = [1000, 10_000]
const LOADS = Number(process.env.LOADS ?? 5)

type Probe = PageWindow & { __shown?: number; __longTasks: number[] }

/** Installed before the app runs: when the first card appears, and every long task. */
function probes(token: string): void {
  const w = globalThis as unknown as Probe & {
    MutationObserver: new (callback: () => void) => { observe(target: unknown, options: object): void; disconnect(): void }
    PerformanceObserver: new (callback: (list: { getEntries(): Array<{ duration: number }> }) => void) => { observe(options: object): void }
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
  await page.waitForFunction(() => (globalThis as unknown as Probe).__shown !== undefined, undefined, { timeout: 30_000 })
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
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-bench-web-'))
  try {
    const seeder = new SqliteSeeder(dataDir)
    await seeder.migrate()
    const user = makeUser(`web-${count}`)
    await seeder.insertUsers([user])
    await seeder.insertNotes(makeNotes(user._id, count))
    await seeder.close()
    const secret = randomBytes(32).toString('hex')
    const token = createTokenService(secret).issue(publicUser(user))
    const service = await startService({ dataDir, secret })
    const viewport = { width: 1280, height: 800 }
    let context = await browser.newContext({ viewport })
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
        context = await browser.newContext({ viewport })
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
      await service.stop()
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const ms = (n: number) => `${Math.round(n)} ms`
const tasks = (list: number[]) => (list.length ? `${list.length}, longest ${ms(Math.max(...list))}` : 'none')

async function main(): Promise<void> {
  const browser = await launchChromium()
  const rows: Figures[] = []
  try {
    for (const count of SIZES) rows.push(await measure(browser, count))
  } finally {
    await browser.close()
  }
  console.log(`\n${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; ${new Date().toISOString()}\n`)
  console.log('| notes | get-all-notes body | navigation → notes shown, first visit (median of 3) | reloads (median, max of 5) | long tasks scrolling | long tasks typing a search |')
  console.log('|---|---|---|---|---|---|')
  for (const r of rows) {
    console.log(
      `| ${r.notes.toLocaleString('en')} | ${(r.listingBytes / 1e6).toFixed(1)} MB | ${ms(r.cold)} | ${ms(median(r.warm))}, ${ms(Math.max(...r.warm))} | ${tasks(r.scroll)} | ${tasks(r.typing)} |`,
    )
  }
}

await main()
