// Debian's Chromium (installed by .ci/run) driven by playwright-core, with no browser download:
// the one way the browser tests (test/docs-browser.test.ts, test/system/) launch it.
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Launches headless Chromium; fails with the way to install it when it is missing. */
export async function launchChromium(): Promise<Browser> {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium (.ci/run does), or set CHROMIUM_PATH`)
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
}
