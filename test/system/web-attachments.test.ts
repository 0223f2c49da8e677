// The web app's attachments, in Debian's Chromium against the built service, on SQLite and on
// PostgreSQL: a picture pasted and a PDF dropped into the editor upload with their progress shown
// and link where the cursor was; the preview and the card show the picture from a blob: URL (its
// thumbnail asked for with the token, never in a URL) and the PDF as a chip that downloads it; a
// file that is not there shows "File not found"; the API's refusals (too large, over the account's
// limit) in its words; the account page's files, usage and a delete that names the notes linking
// to the file; and offline, the pictures of notes seen before, and a picture attached offline that
// waits with its note and is uploaded and linked when the note is sent. Then the screens (a note
// with two pictures and a PDF, the account's files), light and dark, desktop and phone: axe-core
// finds no serious violation; WEB_SCREENSHOTS=DIR saves them.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import type { Page } from 'playwright-core'
import type { ListedAttachmentAnswer } from '../../src/attachment-shape.js'
import { formatBytes } from '../../web/src/attachments/format.js'
import { type PageRecord, openPage } from '../support/browser.js'
import { eventually } from '../support/eventually.js'
import { uniqueEmail } from '../support/harness.js'
import type { PageWindow } from '../support/page-globals.js'
import { storeKinds } from '../support/stores.js'
import {
  PDF,
  card,
  handOver,
  landscape,
  noisePicture,
  showsPictures,
  signIn,
  uploadThrottle,
  uploadThroughApi,
  waitForContent,
} from '../support/web-attachments.js'
import { apiCall, assertClean, signUp, suiteChromium, tokenOf } from '../support/web-flows.js'
import { VIEWPORTS, type WebServer, startWebServer } from '../support/web.js'
import { attachmentScreens } from '../support/web-attachment-screens.js'

const LIMITS = { MAX_ATTACHMENT_MB: '1', MAX_ATTACHMENT_MB_PER_ACCOUNT: '3' }
const ID = '[0-9a-f]{24}'

describe('attachments in the web app', () => {
  const browser = suiteChromium()

  for (const storeKind of storeKinds()) {
    describe(`on ${storeKind}`, () => {
      let server: WebServer
      let page: Page
      let record: PageRecord
      let token: string
      let email: string
      /** Every request the page made: its URL and whether it carried the token. */
      const requests: Array<{ url: string; authorized: boolean }> = []
      let closeContext: () => Promise<void>

      const call = async (method: string, path: string, body?: unknown) => {
        const answer = await apiCall(server.base, token, method, path, body)
        assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.json)}`)
        return answer.json as Record<string, unknown>
      }
      const files = async () => (await call('GET', '/get-attachments')).attachments as ListedAttachmentAnswer[]

      before(async () => {
        server = await startWebServer(storeKind, LIMITS)
        const opened = await openPage(browser(), { ...VIEWPORTS.desktop, colorScheme: 'light' })
        ;({ page, record } = opened)
        closeContext = () => opened.context.close()
        page.on('request', (request) =>
          requests.push({ url: request.url(), authorized: request.headers().authorization === `Bearer ${token}` }),
        )
        email = uniqueEmail(`web-attachments-${storeKind}`)
        await signUp(page, server.base, 'Ada Lovelace', email)
        token = (await tokenOf(page))!
      })
      after(async () => {
        await closeContext?.()
        await server?.close()
      })

      it('pastes a picture with its progress shown and drops a PDF, each linked at the cursor; the preview and the card show the picture from a blob: URL and the PDF as a chip that downloads it', async () => {
        const noise = await noisePicture()
        await page.getByRole('button', { name: 'New note' }).click()
        const editor = page.getByRole('dialog', { name: 'New note' })
        await editor.getByLabel('Title').fill('Trip photos')
        const field = editor.getByLabel('Content', { exact: true })
        await field.fill('Before\nAfter')
        await field.evaluate((element) =>
          (element as unknown as { setSelectionRange(from: number, to: number): void }).setSelectionRange(7, 7),
        )
        // Uploads at 128 KB/s, so the progress shows between its ends.
        const throttle = await uploadThrottle(page)
        await throttle(128 * 1024)
        // Text with a picture of it (cells from a spreadsheet) is text: no upload, so the picture's is the first.
        await handOver(field, 'paste', { name: 'cells.png', type: 'image/png', bytes: PDF }, 'a\tb')
        await handOver(field, 'paste', { name: 'image.png', type: 'image/png', bytes: noise })
        const progress = editor.getByRole('progressbar', { name: 'Uploading image.png' })
        await page.waitForFunction(() => {
          const bar = (globalThis as unknown as PageWindow).document.querySelector('progress') as unknown as
            { value: number } | undefined
          return bar !== null && bar !== undefined && bar.value > 0 && bar.value < 100
        })
        assert.ok(await progress.isVisible())
        assert.equal(await editor.getByRole('button', { name: 'Uploading…' }).isDisabled(), true, 'no save meanwhile')
        assert.equal(await field.inputValue(), 'Before\n![Uploading image.png…](#uploading-1)After')
        assert.equal(await editor.getByRole('progressbar').count(), 1, 'the text pasted uploads nothing')
        await throttle(-1)
        await waitForContent(page, new RegExp(`^Before\\n!\\[image\\.png\\]\\(/attachments/${ID}/image\\.png\\)After$`))
        await progress.waitFor({ state: 'detached' })

        await handOver(field, 'drop', { name: 'report.pdf', type: 'application/pdf', bytes: PDF })
        await waitForContent(page, /\[report\.pdf\]\(/)
        const content = await field.inputValue()
        assert.match(
          content,
          new RegExp(
            `^Before\\n!\\[image\\.png\\]\\(/attachments/${ID}/image\\.png\\)\\[report\\.pdf\\]\\(/attachments/${ID}/report\\.pdf\\)After$`,
          ),
          'the PDF lands at the cursor, after the picture',
        )

        await editor.getByRole('button', { name: 'Preview' }).click()
        await showsPictures(editor.locator('.preview'), 1)
        const chip = editor.locator('.preview').getByRole('button', { name: /report\.pdf/ })
        assert.equal((await chip.innerText()).replace(/\s+/g, ' ').trim(), 'report.pdf PDF · 45 bytes')

        await page.keyboard.press('Control+Enter')
        await editor.waitFor({ state: 'detached' })
        const saved = card(page, 'Trip photos')
        await showsPictures(saved, 1)
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          saved.getByRole('button', { name: /report\.pdf/ }).click(),
        ])
        assert.equal(download.suggestedFilename(), 'report.pdf')
        assert.deepEqual(readFileSync(await download.path()), PDF)
        assert.equal(await page.getByRole('dialog').count(), 0, 'the chip downloads; it does not open the note')

        // The card asks for the 256 px thumbnail, the preview for the 1024 px one, each with the token in its header.
        const [picture] = (await files()).filter((f) => f.name === 'image.png')
        const asked = requests.filter((r) => r.url.includes(`/attachments/${picture!._id}`))
        for (const width of [256, 1024])
          assert.ok(
            asked.some((r) => r.url.endsWith(`/attachments/${picture!._id}/thumbnail?width=${width}`)),
            `the ${width} px thumbnail is asked for`,
          )
        assert.ok(asked.every((r) => r.authorized))
        assert.ok(requests.some((r) => r.url.endsWith('/upload-attachment') && r.authorized))
        assert.deepEqual(
          requests.filter((r) => r.url.includes(token)),
          [],
          'the token is never in a URL',
        )
        const notes = (await call('GET', '/get-all-notes')).notes as Array<{ _id: string; title: string }>
        const noteId = notes.find((n) => n.title === 'Trip photos')!._id
        assert.deepEqual((await files()).map((f) => [f.name, f.type, f.notes]).sort(), [
          ['image.png', 'image/png', [noteId]],
          ['report.pdf', 'application/pdf', [noteId]],
        ])
      })

      it('shows a link to a file that is not there as "File not found" inside the card, and leaves any other path under /attachments/ as text', async () => {
        await call('POST', '/add-note', {
          title: 'Old scan',
          content:
            'The receipt: ![receipt](/attachments/0123456789abcdef01234567/receipt.png)\n[elsewhere](/attachments/../get-user)',
          tags: [],
        })
        const scan = card(page, 'Old scan')
        const missing = scan.locator('.attachment-chip.missing')
        await missing.waitFor()
        assert.equal((await missing.innerText()).replace(/\s+/g, ' ').trim(), 'receipt.png File not found')
        assert.equal(await scan.locator('img, a[href*="attachments"]').count(), 0)
        assert.match(await scan.innerText(), /elsewhere/)
        const [outer, inner] = await Promise.all([scan.boundingBox(), missing.boundingBox()])
        assert.ok(
          outer && inner && inner.x >= outer.x && inner.x + inner.width <= outer.x + outer.width,
          'inside the card',
        )
      })

      it('refuses a file over MAX_ATTACHMENT_MB (413) and one past the account’s limit (403) in the API’s words, and leaves the text as it was', async () => {
        await page.getByRole('button', { name: 'New note' }).click()
        const editor = page.getByRole('dialog', { name: 'New note' })
        await editor.getByLabel('Content', { exact: true }).fill('Unchanged')
        const attach = (name: string, bytes: Buffer) =>
          editor
            .locator('input[type=file]')
            .setInputFiles([{ name, mimeType: 'application/octet-stream', buffer: bytes }])
        await attach('big.bin', Buffer.alloc(1536 * 1024, 7))
        const refusal = editor.getByRole('alert')
        await refusal.waitFor()
        assert.equal(
          (await refusal.innerText()).trim(),
          '“big.bin” was not uploaded: File is too large: one upload carries at most 1 MB',
        )
        assert.equal(await editor.getByLabel('Content', { exact: true }).inputValue(), 'Unchanged')
        await refusal.getByRole('button', { name: 'Dismiss' }).click()

        // Other files fill the account to between 2.4 and 2.9 of its 3 MB; the next file passes the limit by 128 KB.
        const fillers: string[] = []
        let used = (await files()).reduce((sum, f) => sum + f.size, 0)
        while (used + 500 * 1024 <= 2.9 * 2 ** 20) {
          const bytes = Buffer.alloc(500 * 1024, fillers.length)
          fillers.push(
            (await uploadThroughApi(server.base, token, 'filler.bin', 'application/octet-stream', bytes))._id,
          )
          used += bytes.length
        }
        await attach('extra.bin', Buffer.alloc(3 * 2 ** 20 - used + 128 * 1024, 9))
        await refusal.waitFor()
        assert.equal(
          (await refusal.innerText()).trim(),
          '“extra.bin” was not uploaded: Attachment limit reached: an account keeps at most 3 MB of files',
        )
        assert.equal(await editor.getByLabel('Content', { exact: true }).inputValue(), 'Unchanged')
        for (const id of fillers) await call('DELETE', `/delete-attachment/${id}`)
        await page.keyboard.press('Escape')
        await page.keyboard.press('Escape')
        await editor.waitFor({ state: 'detached' })
      })

      it('lists the account’s files with the storage used; Delete names the notes linking to the file, Cancel keeps it, and the note then shows it as missing', async () => {
        await page.getByRole('navigation', { name: 'Account' }).getByRole('link').click()
        const list = page.getByRole('list', { name: 'Files' })
        await list.getByRole('listitem').nth(1).waitFor()
        const listed = await files()
        const used = listed.reduce((sum, f) => sum + f.size, 0)
        assert.equal((await page.locator('.usage').innerText()).trim(), `${formatBytes(used)} of 3 MB used`)
        const row = list.getByRole('listitem').filter({ hasText: 'report.pdf' })
        const pdf = listed.find((f) => f.name === 'report.pdf')!
        const day = await page.evaluate(
          (iso) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(new Date(iso)),
          pdf.createdOn,
        )
        assert.deepEqual(
          (await row.locator('.file-facts').allInnerTexts()).map((text) => text.trim()),
          [`PDF · 45 bytes · ${day}`, 'Linked from 1 note'],
        )
        assert.equal(await list.getByRole('listitem').count(), listed.length)

        await row.getByRole('button', { name: 'Delete report.pdf' }).click()
        const question = page.getByRole('alertdialog', { name: 'Delete “report.pdf”?' })
        await question.waitFor()
        assert.equal(
          (await question.locator('p').innerText()).trim(),
          '1 note links to this file: “Trip photos”. They will show it as missing. It is deleted for good.',
        )
        await question.getByRole('button', { name: 'Cancel' }).click()
        await question.waitFor({ state: 'detached' })
        assert.ok(
          (await files()).some((f) => f.name === 'report.pdf'),
          'Cancel keeps it',
        )

        await row.getByRole('button', { name: 'Delete report.pdf' }).click()
        await question.getByRole('button', { name: 'Delete file' }).click()
        await page.getByRole('status').filter({ hasText: 'Deleted “report.pdf”.' }).waitFor()
        await row.waitFor({ state: 'detached' })
        assert.ok(!(await files()).some((f) => f.name === 'report.pdf'))
        assert.equal((await apiCall(server.base, token, 'GET', `/attachments/${pdf._id}`)).status, 404)
        assert.equal((await page.locator('.usage').innerText()).trim(), `${formatBytes(used - pdf.size)} of 3 MB used`)

        await page.getByRole('link', { name: '← Back to your notes' }).click()
        const missing = card(page, 'Trip photos').locator('.attachment-chip.missing')
        await missing.waitFor()
        assert.equal((await missing.innerText()).replace(/\s+/g, ' ').trim(), 'report.pdf File not found')
        await showsPictures(card(page, 'Trip photos'), 1)
      })

      it('shows the pictures of notes seen before with no network; a picture attached offline shows at once, waits with its note, and is uploaded and linked when the note is sent', async () => {
        const other = await openPage(browser(), { ...VIEWPORTS.desktop, colorScheme: 'light' })
        const device = other.page
        try {
          await signIn(device, server.base, email)
          await showsPictures(card(device, 'Trip photos'), 1)
          await device.waitForFunction(
            () => (globalThis as unknown as PageWindow).navigator.serviceWorker.controller !== null,
          )
          await other.context.setOffline(true)
          await device.reload()
          await showsPictures(card(device, 'Trip photos'), 1)

          await device.getByRole('button', { name: 'New note' }).click()
          const editor = device.getByRole('dialog', { name: 'New note' })
          await editor.getByLabel('Title').fill('Made offline')
          const rose = await landscape('#c2577a', '#5a3a4a', 480, 320)
          await editor
            .locator('input[type=file]')
            .setInputFiles([{ name: 'rose.png', mimeType: 'image/png', buffer: rose }])
          await waitForContent(device, /^!\[rose\.png\]\(\/attachments\/local-[0-9a-f-]{36}\/rose\.png\)$/)
          await editor.getByRole('button', { name: 'Preview' }).click()
          await showsPictures(editor.locator('.preview'), 1)
          await device.keyboard.press('Control+Enter')
          await device
            .getByRole('status')
            .filter({ hasText: 'Note added on this device; it is sent when you are back online' })
            .waitFor()
          await showsPictures(card(device, 'Made offline'), 1)
          const indicator = device.locator('.sync-status')
          assert.equal((await indicator.innerText()).trim(), 'Offline · 1 change waiting to be sent')

          await other.context.setOffline(false)
          await indicator.waitFor({ state: 'detached' })
          const notes = (await call('GET', '/get-all-notes')).notes as Array<{
            _id: string
            title: string
            content: string
          }>
          const made = notes.find((n) => n.title === 'Made offline')!
          assert.match(made.content, new RegExp(`^!\\[rose\\.png\\]\\(/attachments/${ID}/rose\\.png\\)$`))
          const uploaded = (await files()).find((f) => f.name === 'rose.png')!
          assert.deepEqual(uploaded.notes, [made._id])
          assert.equal(uploaded.size, rose.length)
          await eventually(
            'the card links to the uploaded file',
            async () => !(await card(device, 'Made offline').innerHTML()).includes('local-'),
            10_000,
          )
          await showsPictures(card(device, 'Made offline'), 1)
          assert.deepEqual([...other.record.outside, ...other.record.cspViolations, ...other.record.errors], [])
        } finally {
          await other.context.close()
        }
      })

      it('loaded nothing from another host, broke no CSP rule and threw nothing', () => {
        assertClean(record)
      })
    })
  }

  attachmentScreens(browser)
})
