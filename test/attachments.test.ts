// The attachment endpoints on both stores, through inject and a real socket: an upload's answer, the bytes served
// back with their safety headers, ETag and Range, the type read from the bytes, hostile names and files, another
// account's ids, deletion, and that nothing of a refused upload stays.
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import { parse as parseDisposition } from 'content-disposition'
import type { AttachmentAnswer, ListedAttachmentAnswer } from '../src/attachment-shape.js'
import { type Account, type Harness, type Reply, register, startHarness, targets } from './support/harness.js'
import { uploadFile, uploaded } from './support/attachments.js'
import { GIF_HTML_POLYGLOT, SVG_WITH_SCRIPT, TINY_PNG } from './support/multipart.js'

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex')

async function listed(h: Harness, token: string) {
  const reply = await h.client.request('GET', '/get-attachments', { token })
  assert.equal(reply.status, 200, reply.text)
  return reply.json as { attachments: ListedAttachmentAnswer[]; usage: { bytes: number; limit: number } }
}

const header = (reply: Reply, name: string) => reply.headers[name] as string | undefined

for (const { mode, storeKind } of targets()) {
  describe(`attachments (${mode}, ${storeKind})`, () => {
    let h: Harness
    let a: Account
    before(async () => {
      h = await startHarness(mode, { storeKind })
      a = await register(h.client)
    })
    after(async () => h.close())

    it('answers an upload with its record and serves the same bytes back, inline, with the safety headers', async () => {
      const reply = await uploadFile(h, a.token, { filename: 'dot.png', type: 'text/html', bytes: TINY_PNG })
      assert.equal(reply.status, 200, reply.text)
      const body = reply.json as { error: boolean; attachment: AttachmentAnswer; message: string }
      assert.deepEqual(Object.keys(body), ['error', 'attachment', 'message'])
      assert.equal(body.error, false)
      assert.equal(body.message, 'Attachment uploaded successfully')
      const file = body.attachment
      assert.deepEqual(Object.keys(file), ['_id', 'name', 'type', 'size', 'sha256', 'createdOn', 'url'])
      assert.match(file._id, /^[0-9a-f]{24}$/)
      assert.equal(file.name, 'dot.png')
      assert.equal(file.type, 'image/png', "the bytes' type, not the client's header")
      assert.equal(file.size, TINY_PNG.length)
      assert.equal(file.sha256, sha256(TINY_PNG))
      assert.equal(file.url, `/attachments/${file._id}/dot.png`)

      const got = await h.client.request('GET', file.url, { token: a.token })
      assert.equal(got.status, 200)
      assert.deepEqual(got.bytes, TINY_PNG)
      assert.equal(header(got, 'content-type'), 'image/png')
      assert.equal(header(got, 'x-content-type-options'), 'nosniff')
      assert.equal(header(got, 'content-security-policy'), "sandbox; default-src 'none'")
      assert.match(header(got, 'cache-control') ?? '', /^private\b/)
      assert.equal(header(got, 'etag'), `"${file.sha256}"`)
      assert.deepEqual(
        {
          ...parseDisposition(header(got, 'content-disposition')!),
          parameters: { ...parseDisposition(header(got, 'content-disposition')!).parameters },
        },
        {
          type: 'inline',
          parameters: { filename: 'dot.png' },
        },
      )
      // Without the name segment too; with another one, 404.
      assert.deepEqual((await h.client.request('GET', `/attachments/${file._id}`, { token: a.token })).bytes, TINY_PNG)
      const wrongName = await h.client.request('GET', `/attachments/${file._id}/other.png`, { token: a.token })
      assert.equal(wrongName.status, 404)
      assert.deepEqual(wrongName.json, { error: true, message: 'Attachment not found' })
    })

    it('answers ranges with 206, past the end with 416, and a matching If-None-Match with 304', async () => {
      const bytes = randomBytes(100_000)
      const file = await uploaded(h, a.token, { filename: 'data.bin', bytes })
      const part = await h.client.request('GET', file.url, { token: a.token, headers: { range: 'bytes=10-19' } })
      assert.equal(part.status, 206)
      assert.deepEqual(part.bytes, bytes.subarray(10, 20))
      assert.equal(header(part, 'content-range'), `bytes 10-19/${bytes.length}`)
      // HEAD tells the sizes without a body.
      const head = await h.client.request('HEAD', file.url, { token: a.token })
      assert.equal(head.status, 200)
      assert.equal(header(head, 'content-length'), String(bytes.length))
      assert.equal(head.bytes.length, 0)
      const headOfRange = await h.client.request('HEAD', file.url, {
        token: a.token,
        headers: { range: 'bytes=10-19' },
      })
      assert.equal(headOfRange.status, 206)
      assert.equal(header(headOfRange, 'content-length'), '10')
      assert.equal(header(headOfRange, 'content-range'), `bytes 10-19/${bytes.length}`)
      const tail = await h.client.request('GET', file.url, { token: a.token, headers: { range: 'bytes=-5' } })
      assert.deepEqual(tail.bytes, bytes.subarray(bytes.length - 5))
      const past = await h.client.request('GET', file.url, { token: a.token, headers: { range: 'bytes=100000-' } })
      assert.equal(past.status, 416)
      assert.equal(header(past, 'content-range'), `bytes */${bytes.length}`)
      const again = await h.client.request('GET', file.url, {
        token: a.token,
        headers: { 'if-none-match': `"${file.sha256}"` },
      })
      assert.equal(again.status, 304)
      assert.equal(again.bytes.length, 0)
      // An If-Range naming another version gets the whole file.
      const stale = await h.client.request('GET', file.url, {
        token: a.token,
        headers: { range: 'bytes=0-0', 'if-range': '"0"' },
      })
      assert.equal(stale.status, 200)
      assert.equal(stale.bytes.length, bytes.length)
    })

    it('serves SVG, HTML and a GIF/HTML polyglot named .html as downloads, and strips paths and controls from names', async () => {
      const svg = await uploaded(h, a.token, { filename: 'logo.svg', type: 'image/svg+xml', bytes: SVG_WITH_SCRIPT })
      const html = await uploaded(h, a.token, {
        filename: 'page.html',
        type: 'text/html',
        bytes: '<script>x()</script>',
      })
      const polyglot = await uploaded(h, a.token, { filename: 'x.html', type: 'image/gif', bytes: GIF_HTML_POLYGLOT })
      assert.equal(svg.type, 'image/svg+xml')
      assert.equal(html.type, 'text/html')
      assert.equal(polyglot.type, 'image/gif')
      for (const file of [svg, html, polyglot]) {
        const got = await h.client.request('GET', file.url, { token: a.token })
        assert.equal(got.status, 200)
        const disposition = parseDisposition(header(got, 'content-disposition')!)
        assert.equal(disposition.type, 'attachment', file.name)
        assert.equal(disposition.parameters.filename, file.name)
        assert.equal(header(got, 'content-security-policy'), "sandbox; default-src 'none'")
        assert.equal(header(got, 'x-content-type-options'), 'nosniff')
      }
      const traversal = await uploaded(h, a.token, { filename: '../../x', bytes: 'x' })
      assert.equal(traversal.name, 'x')
      const controls = await uploaded(h, a.token, { filename: 'a\u202egnp.exe', bytes: 'x' })
      assert.equal(controls.name, 'agnp.exe')
      const long = await uploaded(h, a.token, { filename: `${'é'.repeat(300)}.txt`, bytes: 'x' })
      assert.ok(Buffer.byteLength(long.name) <= 255 && long.name.endsWith('.txt'), long.name)
      const named = await h.client.request('GET', long.url, { token: a.token })
      assert.equal(parseDisposition(header(named, 'content-disposition')!).parameters.filename, long.name)
      const empty = await uploaded(h, a.token, { filename: 'empty.txt', bytes: '' })
      assert.equal(empty.size, 0)
      const got = await h.client.request('GET', empty.url, { token: a.token })
      assert.equal(got.status, 200)
      assert.equal(got.bytes.length, 0)
    })

    it("answers another account's id, a malformed id and an unknown one with 404, and lists and deletes", async () => {
      const file = await uploaded(h, a.token, { filename: 'mine.txt', bytes: 'mine' })
      const b = await register(h.client)
      for (const path of [
        file.url,
        `/attachments/${file._id}`,
        '/attachments/not-an-id',
        '/attachments/0123456789abcdef01234567',
      ]) {
        const reply = await h.client.request('GET', path, { token: b.token })
        assert.equal(reply.status, 404, path)
        assert.deepEqual(reply.json, { error: true, message: 'Attachment not found' })
      }
      assert.equal((await h.client.request('DELETE', `/delete-attachment/${file._id}`, { token: b.token })).status, 404)
      assert.equal((await h.client.request('GET', file.url)).status, 401)
      assert.deepEqual((await listed(h, b.token)).attachments, [])

      const before = await listed(h, a.token)
      assert.equal(before.attachments[0]?._id, file._id, 'newest first')
      assert.equal(
        before.usage.bytes,
        before.attachments.reduce((sum, f) => sum + f.size, 0),
      )
      const deleted = await h.client.request('DELETE', `/delete-attachment/${file._id}`, { token: a.token })
      assert.deepEqual(deleted.json, { error: false, message: 'Attachment deleted successfully' })
      assert.equal((await h.client.request('GET', file.url, { token: a.token })).status, 404)
      const afterDelete = await listed(h, a.token)
      assert.equal(afterDelete.usage.bytes, before.usage.bytes - file.size)
      assert.ok(!afterDelete.attachments.some((f) => f._id === file._id))
    })

    it('refuses a body that is not one file part named "file" with a clear 400', async () => {
      const json = await h.client.request('POST', '/upload-attachment', { token: a.token, body: { file: 'x' } })
      assert.equal(json.status, 400)
      assert.deepEqual(json.json, {
        error: true,
        message: 'Upload a file as multipart/form-data, in one part named "file"',
      })
      const wrongField = await uploadFile(h, a.token, { field: 'upload', filename: 'x.txt', bytes: 'x' })
      assert.equal(wrongField.status, 400)
      const text = await h.client.request('POST', '/upload-attachment', {
        token: a.token,
        raw: 'x',
        headers: { 'content-type': 'text/plain' },
      })
      assert.equal(text.status, 400)
    })
  })
}
