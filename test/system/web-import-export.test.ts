// The account page's "Import notes" and "Export all notes", in Debian's Chromium against the built
// service, on SQLite and on PostgreSQL: a zip of Markdown files chosen with the file chooser is
// imported with its progress shown and its summary read out; imported again, its notes are
// already there; the notes show in the notes list; a file of no format the service reads gets the
// API's message; offline, the section says it needs a connection; the Markdown export downloads a
// zip holding the notes, fetched with the token in its header and never in a URL. Then the
// screens (test/support/web-import-screens.ts): WEB_SCREENSHOTS=DIR saves them.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import yauzl from 'yauzl'
import yazl from 'yazl'
import { type PageRecord, openPage } from '../support/browser.js'
import { uniqueEmail } from '../support/harness.js'
import { storeKinds } from '../support/stores.js'
import { apiCall, assertClean, signUp, suiteChromium, tokenOf } from '../support/web-flows.js'
import { importScreens } from '../support/web-import-screens.js'
import { VIEWPORTS, type WebServer, seriousAxeViolations, startWebServer } from '../support/web.js'

/** A zip of `files` (path → text), as a folder of Markdown files is zipped. */
export function zipOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  const zip = new yazl.ZipFile()
  for (const [path, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), path)
  zip.end()
  const chunks: Buffer[] = []
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk))
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)))
    zip.outputStream.on('error', reject)
  })
}

/** Every file of a zip: path → text. */
async function unzip(bytes: Buffer): Promise<Map<string, string>> {
  const zip = await yauzl.fromBufferPromise(bytes, { lazyEntries: true })
  const files = new Map<string, string>()
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (entry.fileName.endsWith('/')) return zip.readEntry()
      zip.openReadStreamPromise(entry).then((stream) => {
        const chunks: Buffer[] = []
        stream.on('data', (chunk: Buffer) => chunks.push(chunk))
        stream.on('end', () => {
          files.set(entry.fileName, Buffer.concat(chunks).toString('utf8'))
          zip.readEntry()
        })
        stream.on('error', reject)
      }, reject)
    })
    zip.on('end', () => resolve())
    zip.on('error', reject)
    zip.readEntry()
  })
  return files
}

const NOTES = {
  'Groceries.md': 'Oat milk, eggs and *coffee beans* for the week (marigold).\n',
  'Trip/Packing list.md': '- boots\n- a map of the ridge\n- marigold seeds for Ann\n',
}
/** A note saved in Latin-1 by an old editor: not UTF-8, so the import skips it and says why. */
const NOT_UTF8 = { 'Trip/Old scan.md': Buffer.from('Caf\xe9 receipts, 1998\n', 'latin1') }

async function chooseFile(page: Page, file: { name: string; mimeType: string; buffer: Buffer }): Promise<void> {
  const section = page.getByRole('region', { name: 'Import notes' })
  const [chooser] = await Promise.all([
    page.waitForEvent('filechooser'),
    section.getByRole('button', { name: 'Choose a file…' }).click(),
  ])
  await chooser.setFiles(file)
}

describe('importing and exporting notes in the web app', () => {
  const browser = suiteChromium()

  for (const storeKind of storeKinds()) {
    describe(`on ${storeKind}`, () => {
      let server: WebServer
      let page: Page
      let record: PageRecord
      let token: string
      let closeContext: () => Promise<void>
      /** Every request the page made. */
      const urls: string[] = []

      before(async () => {
        server = await startWebServer(storeKind)
        const opened = await openPage(browser(), { ...VIEWPORTS.desktop, colorScheme: 'light', acceptDownloads: true })
        ;({ page, record } = opened)
        closeContext = () => opened.context.close()
        page.on('request', (request) => urls.push(request.url()))
        await signUp(page, server.base, 'Ada Lovelace', uniqueEmail(`web-import-${storeKind}`))
        token = (await tokenOf(page))!
        await page.goto(`${server.base}/account`)
        await page.getByRole('region', { name: 'Import notes' }).waitFor()
      })
      after(async () => {
        await closeContext?.()
        await server?.close()
      })

      it('imports a zip of Markdown files chosen with the file chooser, shows the summary, and the notes show in the list', async () => {
        const section = page.getByRole('region', { name: 'Import notes' })
        const zip = await zipOf({ ...NOTES, ...NOT_UTF8 })
        await chooseFile(page, { name: 'notes.zip', mimeType: 'application/zip', buffer: zip })
        const result = section.locator('.import-result')
        await result.waitFor({ timeout: 60_000 })
        assert.equal(await section.locator('.import-headline').innerText(), 'Imported “notes.zip” (Markdown).')
        const counts = (await section.locator('.import-counts').innerText()).replace(/\s+/g, ' ').trim()
        assert.equal(counts, 'Imported 2 notes Already here 0 notes Attachments 0 files Skipped 1 item')
        assert.equal(await section.locator('.import-progress').count(), 0, 'the progress is gone')
        const skipped = section.getByRole('group').filter({ hasText: '1 item skipped, and why' })
        assert.equal(await skipped.getAttribute('open'), '', 'one skipped item shows unfolded')
        assert.match(await skipped.getByRole('listitem').innerText(), /^Trip\/Old scan\.md\n\S/)
        assert.deepEqual(await seriousAxeViolations(page), [])

        const { json } = await apiCall(server.base, token, 'GET', '/get-all-notes')
        const notes = (json as { notes: Array<{ title: string; content: string }> }).notes
        assert.deepEqual(notes.map((n) => n.title).sort(), ['Groceries', 'Packing list'])

        await page.getByRole('link', { name: '← Back to your notes' }).click()
        for (const title of ['Groceries', 'Packing list'])
          await page.getByRole('heading', { name: title }).first().waitFor()
        await page.goBack()
        await section.waitFor()
      })

      it('imports the same file again and finds its notes already there', async () => {
        const section = page.getByRole('region', { name: 'Import notes' })
        const zip = await zipOf({ ...NOTES, ...NOT_UTF8 })
        await chooseFile(page, { name: 'notes.zip', mimeType: 'application/zip', buffer: zip })
        await section.locator('.import-result').waitFor({ timeout: 60_000 })
        const counts = (await section.locator('.import-counts').innerText()).replace(/\s+/g, ' ').trim()
        assert.equal(counts, 'Imported 0 notes Already here 2 notes Attachments 0 files Skipped 1 item')
        assert.equal(await section.locator('.import-headline').innerText(), 'Nothing new in “notes.zip” (Markdown).')
        const { json } = await apiCall(server.base, token, 'GET', '/get-all-notes')
        assert.equal((json as { notes: unknown[] }).notes.length, 2, 'nothing was added')
      })

      it('shows the API’s message for a file of no format it reads', async () => {
        const section = page.getByRole('region', { name: 'Import notes' })
        await chooseFile(page, {
          name: 'letter.docx',
          mimeType: 'application/octet-stream',
          buffer: Buffer.alloc(64, 1),
        })
        const alert = section.getByRole('alert')
        await alert.waitFor()
        assert.match(await alert.innerText(), /^“letter\.docx” was not imported: \S/)
        assert.equal(await section.locator('.import-result').count(), 0)
      })

      it('says import and export need a connection while offline', async () => {
        const section = page.getByRole('region', { name: 'Import notes' })
        await page.context().setOffline(true)
        try {
          await section.getByText('Importing needs a connection.', { exact: false }).waitFor()
          assert.equal(await section.getByRole('button', { name: 'Choose a file…' }).count(), 0)
          const exporting = page.getByRole('region', { name: 'Export all notes' })
          assert.equal(await exporting.getByRole('button', { name: 'Export notes' }).isDisabled(), true)
        } finally {
          await page.context().setOffline(false)
        }
        await section.getByRole('button', { name: 'Choose a file…' }).waitFor()
      })

      it('exports every note as Markdown in a zip, fetched with the token in its header and never in a URL', async () => {
        const exporting = page.getByRole('region', { name: 'Export all notes' })
        await exporting.getByLabel('Markdown (.zip)').check()
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          exporting.getByRole('button', { name: 'Export notes' }).click(),
        ])
        const name = download.suggestedFilename()
        assert.match(name, /\.zip$/)
        await exporting.getByText(`Downloaded “${name}”.`).waitFor()
        const files = await unzip(await readFile(await download.path()))
        const texts = [...files.entries()].filter(([path]) => path.endsWith('.md'))
        const expected: Array<[string, string]> = [
          ['Groceries', NOTES['Groceries.md']],
          ['Packing list', NOTES['Trip/Packing list.md']],
        ]
        for (const [title, content] of expected) {
          assert.ok(
            texts.some(([path, text]) => path.includes(title) && text.includes(content.trim())),
            `${title} is in the export: ${[...files.keys()].join(', ')}`,
          )
        }
        assert.ok(urls.some((url) => new URL(url).pathname === '/export-notes'))
        assert.deepEqual(
          urls.filter((url) => url.includes(token)),
          [],
          'the token is never in a URL',
        )
        assertClean(record)
      })
    })
  }

  importScreens(
    browser,
    async () => ({
      name: 'Obsidian vault.zip',
      mimeType: 'application/zip',
      buffer: await zipOf({
        'Vault/Recipes/Pancakes.md': '# Pancakes\n\n- 2 eggs\n- 250 ml oat milk\n- a pinch of salt\n',
        'Vault/Recipes/Lentil soup.md': 'Red lentils, cumin, lemon.\n',
        'Vault/Garden/Spring sowing.md': '---\ntags: [garden]\n---\nTomatoes indoors in March; beans outside in May.\n',
        'Vault/Garden/Old plan.md': Buffer.from('Plan du jardin \xe9t\xe9 2009\n', 'latin1'),
      }),
    }),
    'Vault/Garden/Old plan.md',
  )
})
