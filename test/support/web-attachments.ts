// What the web app's attachment tests share (test/system/web-attachments.test.ts): the files they
// attach (pictures drawn with sharp, a PDF, incompressible bytes), uploads through the API beside
// the page, and a file pasted or dropped into the editor as the browser hands one over: a
// synthetic paste or drop event whose DataTransfer holds a File made in the page.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { Locator, Page } from 'playwright-core'
import sharp from 'sharp'
import type { AttachmentAnswer } from '../../src/attachment-shape.js'
import { eventually } from './eventually.js'
import { PASSWORD } from './web-flows.js'

export const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n')

/** A landscape of `sky` and `land` colours, `width`×`height`, as PNG: something a person can tell apart in a screenshot. */
export function landscape(sky: string, land: string, width = 960, height = 640): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 960 640">
    <defs><linearGradient id="s" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${sky}"/><stop offset="1" stop-color="#f6e3b8"/></linearGradient></defs>
    <rect width="960" height="640" fill="url(#s)"/><circle cx="660" cy="250" r="60" fill="#fff3cf"/>
    <path d="M0 430 L190 280 L340 390 L480 250 L650 410 L790 320 L960 430 L960 640 L0 640Z" fill="${land}"/>
    <path d="M0 540 L220 450 L420 520 L600 450 L960 560 L960 640 L0 640Z" fill="#1d2a2a" opacity="0.55"/></svg>`
  return sharp(Buffer.from(svg)).png().toBuffer()
}

/** A PNG of random pixels: about 690 KB that no compression shrinks, so its upload takes a while when throttled. */
export function noisePicture(): Promise<Buffer> {
  return sharp(randomBytes(480 * 480 * 3), { raw: { width: 480, height: 480, channels: 3 } })
    .png()
    .toBuffer()
}

export async function uploadThroughApi(
  base: string,
  token: string,
  name: string,
  type: string,
  bytes: Buffer,
): Promise<AttachmentAnswer> {
  const form = new FormData()
  form.append('file', new Blob([bytes], { type }), name)
  const res = await fetch(`${base}/upload-attachment`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  })
  const body = (await res.json()) as { attachment: AttachmentAnswer }
  assert.equal(res.status, 200, JSON.stringify(body))
  return body.attachment
}

/** The browser's constructors the scripts below use, typed for them alone (the tests compile without the DOM library). */
interface TransferWindow {
  DataTransfer: new () => { items: { add(file: unknown): void }; setData(type: string, text: string): void }
  File: new (bits: unknown[], name: string, options: { type: string }) => unknown
  Uint8Array: typeof Uint8Array
  atob(data: string): string
  ClipboardEvent: new (type: string, init: object) => unknown
  DragEvent: new (type: string, init: object) => unknown
}

/**
 * Pastes (`paste`) or drops (`drop`, after a `dragover`) a file into the editor's content field;
 * with `text`, the transfer holds that as text/plain too (cells copied from a spreadsheet).
 */
export async function handOver(
  field: Locator,
  how: 'paste' | 'drop',
  file: { name: string; type: string; bytes: Buffer },
  text = '',
): Promise<void> {
  await field.evaluate(
    (element, { how, name, type, base64, text }) => {
      const w = globalThis as unknown as TransferWindow
      const bytes = w.Uint8Array.from(w.atob(base64), (c) => c.charCodeAt(0))
      const transfer = new w.DataTransfer()
      transfer.items.add(new w.File([bytes], name, { type }))
      if (text) transfer.setData('text/plain', text)
      const target = element as unknown as { dispatchEvent(event: unknown): boolean }
      const init = { bubbles: true, cancelable: true }
      if (how === 'paste') target.dispatchEvent(new w.ClipboardEvent('paste', { ...init, clipboardData: transfer }))
      else {
        target.dispatchEvent(new w.DragEvent('dragover', { ...init, dataTransfer: transfer }))
        target.dispatchEvent(new w.DragEvent('drop', { ...init, dataTransfer: transfer }))
      }
    },
    { how, name: file.name, type: file.type, base64: file.bytes.toString('base64'), text },
  )
}

/** The pictures `scope` shows: their src and natural width (0 for one that did not decode). */
export function pictures(scope: Locator): Promise<Array<{ src: string; width: number }>> {
  return scope.locator('.attachment-picture img').evaluateAll((images) =>
    images.map((img) => ({
      src: (img as unknown as { src: string }).src,
      width: (img as unknown as { naturalWidth: number }).naturalWidth,
    })),
  )
}

/** Waits until `scope` shows `count` pictures, every one decoded, each from a blob: URL. */
export async function showsPictures(scope: Locator, count: number): Promise<Array<{ src: string; width: number }>> {
  let shown: Array<{ src: string; width: number }> = []
  await eventually(
    `${count} pictures shown`,
    async () => {
      shown = await pictures(scope)
      return shown.length === count && shown.every((p) => p.width > 0)
    },
    15_000,
  )
  for (const picture of shown) assert.match(picture.src, /^blob:/)
  return shown
}

export const card = (page: Page, title: string) =>
  page.locator('article.note', { has: page.getByRole('heading', { name: title, exact: true }) })

export async function signIn(page: Page, base: string, email: string): Promise<void> {
  await page.goto(`${base}/sign-in`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Your notes' }).waitFor({ state: 'attached' })
}

/** Waits until the open editor's content matches `pattern`. */
export const waitForContent = (page: Page, pattern: RegExp) =>
  eventually(
    `the content matches ${String(pattern)}`,
    async () => pattern.test(await page.getByLabel('Content', { exact: true }).inputValue()),
    15_000,
  )

/** Sets how fast the page uploads, in bytes per second (-1: no limit), through the DevTools protocol. */
export async function uploadThrottle(page: Page): Promise<(bytesPerSecond: number) => Promise<unknown>> {
  const cdp = await page.context().newCDPSession(page)
  return (uploadThroughput) =>
    cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput,
    })
}
