// Renders the web app's PNG icons from their SVG sources (web/icons/) with the tests' Chromium:
// the manifest needs 192 and 512 px PNGs (Chromium's install criteria) and a maskable one, whose
// drawing stays inside the central 80 % that every launcher's mask keeps. The PNGs are committed
// as source assets in web/public/icons/; run this again after changing an SVG:
//   node --import tsx scripts/render-icons.ts
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { launchChromium } from '../test/support/browser.js'

const web = (path: string) => fileURLToPath(new URL(`../web/${path}`, import.meta.url))

const ICONS = [
  { source: 'icons/icon.svg', size: 192, output: 'public/icons/icon-192.png' },
  { source: 'icons/icon.svg', size: 512, output: 'public/icons/icon-512.png' },
  { source: 'icons/icon-maskable.svg', size: 512, output: 'public/icons/icon-maskable-512.png' },
]

const browser = await launchChromium()
try {
  for (const icon of ICONS) {
    const page = await browser.newPage({ viewport: { width: icon.size, height: icon.size }, deviceScaleFactor: 1 })
    const svg = readFileSync(web(icon.source), 'utf8').replace(
      '<svg ',
      `<svg width="${icon.size}" height="${icon.size}" `,
    )
    await page.setContent(
      `<!doctype html><style>html,body{margin:0;background:transparent}svg{display:block}</style>${svg}`,
    )
    writeFileSync(web(icon.output), await page.screenshot({ omitBackground: true, type: 'png' }))
    await page.close()
    console.log(`${icon.output}: ${icon.size}×${icon.size}`)
  }
} finally {
  await browser.close()
}
