// The web app started with no network: one account with 1 000 notes (seeded straight into SQLite,
// as bench/web-app.ts does), a first visit online that installs the service worker and fills the
// IndexedDB replica, then reloads with the network off (Playwright's context.setOffline, which
// Chromium applies to the page and its worker alike). Measured from navigation (the new document's
// time origin): the first note card in the DOM, and the moment the page holds all 1 000 notes
// (the tag filter's counts add up to the seeded notes with a tag, which only the whole list gives).
// The same reloads online, for comparison. Built service, Debian's Chromium, 1280×800.
// Run: npm run bench:web-offline (it builds first). Prints a Markdown table and writes it to
// bench/results/web-offline.md. Target: all 1 000 notes shown in under 1 s offline.
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { publicUser } from '../src/services/accounts.js'
import { createTokenService } from '../src/services/tokens.js'
import { launchChromium } from '../test/support/browser.js'
import type { PageWindow } from '../test/support/page-globals.js'
import { median } from './measure.js'
import { startService } from './processes.js'
import { SqliteSeeder, makeNotes, makeUser } from './seed.js'

const NOTES = 1000
const RELOADS = Number(process.env.RELOADS ?? 9)

type Probe = PageWindow & { __shown?: number; __whole?: number }

/** Installed before the app runs: when the first card appears, and when the tag counts add up to `tagged`. */
function probes({ token, tagged }: { token: string; tagged: number }): void {
  const w = globalThis as unknown as Probe & {
    MutationObserver: new (callback: () => void) => { observe(target: unknown, options: object): void; disconnect(): void }
  }
  w.localStorage.setItem('notes-service.token', token)
  const observer = new w.MutationObserver(() => {
    const now = w.performance.now()
    if (w.__shown === undefined && w.document.querySelector('article.note')) w.__shown = now
    if (w.__whole === undefined) {
      let sum = 0
      for (const count of Array.from(w.document.querySelectorAll('.filter-chip .count'))) sum += Number(count.textContent)
      if (sum === tagged) w.__whole = now
    }
    if (w.__shown !== undefined && w.__whole !== undefined) observer.disconnect()
  })
  observer.observe(w.document, { childList: true, subtree: true, characterData: true })
}

async function reload(page: Page): Promise<{ shown: number; whole: number }> {
  await page.reload()
  await page.waitForFunction(() => (globalThis as unknown as Probe).__whole !== undefined && (globalThis as unknown as Probe).__shown !== undefined, undefined, {
    timeout: 30_000,
  })
  return page.evaluate(() => ({ shown: (globalThis as unknown as Probe).__shown ?? -1, whole: (globalThis as unknown as Probe).__whole ?? -1 }))
}

const ms = (n: number) => `${Math.round(n)} ms`
const summary = (list: number[]) => `${ms(median(list))} (${ms(Math.min(...list))}–${ms(Math.max(...list))})`

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-bench-offline-'))
  const browser = await launchChromium()
  try {
    const seeder = new SqliteSeeder(dataDir)
    await seeder.migrate()
    const user = makeUser('offline')
    await seeder.insertUsers([user])
    const notes = [...makeNotes(user._id, NOTES)]
    await seeder.insertNotes(notes)
    await seeder.close()
    const tagged = notes.filter((note) => note.tags.length > 0).length
    const secret = randomBytes(32).toString('hex')
    const token = createTokenService(secret).issue(publicUser(user))
    const service = await startService({ dataDir, secret })
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    try {
      await context.addInitScript(probes, { token, tagged })
      const page = await context.newPage()
      // The visit online: the worker installs (precaching the app shell), the replica fills.
      await page.goto(`${service.url}/`)
      await page.waitForFunction(() => (globalThis as unknown as Probe).__whole !== undefined, undefined, { timeout: 30_000 })
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

      const lines = [
        `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; ${NOTES.toLocaleString('en')} notes; ${RELOADS} reloads each, median (min–max)`,
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
      writeFileSync(join(results, 'web-offline.md'), `# Web app: reload with no network\n\n\`npm run bench:web-offline\`\n\n${text}\n`)
    } finally {
      await context.close()
      await service.stop()
    }
  } finally {
    await browser.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
