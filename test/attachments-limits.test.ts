// The attachment limits on both stores: MAX_ATTACHMENT_MB answered with 413 before the rest of the body is read,
// MAX_ATTACHMENT_MB_PER_ACCOUNT with 403 whatever the order of twenty uploads at once, and an upload cut off by its
// client: none of them leaves a record or bytes behind.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import { connect } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { defaultConfig } from '../src/config.js'
import { type Account, type Harness, register, startHarness } from './support/harness.js'
import { eventually } from './support/eventually.js'
import { multipartBody } from './support/multipart.js'
import { storeKinds } from './support/stores.js'
import { uploadFile } from './support/attachments.js'

const MB = 2 ** 20

async function blobCount(h: Harness): Promise<number> {
  let n = 0
  for await (const blob of h.blobs.list()) n += blob.key ? 1 : 0
  return n
}

/** Sends the head of a request over a raw socket and what of the body `send` writes; resolves to what came back. */
function rawExchange(
  port: number,
  head: string,
  send: (write: (b: Buffer) => boolean, end: () => void) => void | Promise<void>,
) {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let answer = ''
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')))
    socket.on('error', () => resolve(answer))
    socket.on('close', () => resolve(answer))
    socket.on('connect', () => {
      socket.write(head)
      void Promise.resolve(
        send(
          (b) => socket.write(b),
          () => socket.destroy(),
        ),
      ).catch(reject)
    })
    setTimeout(() => reject(new Error(`no answer; got so far: ${answer.slice(0, 200)}`)), 60_000).unref()
  })
}

for (const storeKind of storeKinds()) {
  describe(`attachment limits (http, ${storeKind})`, () => {
    let h: Harness
    let a: Account
    let port: number
    before(async () => {
      const attachments = { ...defaultConfig.attachments, megabytes: 1, megabytesPerAccount: 2 }
      h = await startHarness('http', { storeKind, config: { attachments } })
      port = (h.app.server.address() as { port: number }).port
      a = await register(h.client)
    })
    after(async () => h.close())

    it('answers a file past MAX_ATTACHMENT_MB with 413 and keeps nothing of it', async () => {
      const reply = await uploadFile(h, a.token, { filename: 'big.bin', bytes: randomBytes(MB + 1) })
      assert.equal(reply.status, 413)
      assert.deepEqual(reply.json, { error: true, message: 'File is too large: one upload carries at most 1 MB' })
      // Exactly the limit is taken.
      assert.equal((await uploadFile(h, a.token, { filename: 'just.bin', bytes: randomBytes(MB) })).status, 200)
      const list = await h.client.request('GET', '/get-attachments', { token: a.token })
      const { attachments } = list.json as { attachments: Array<{ name: string }> }
      assert.deepEqual(
        attachments.map((f) => f.name),
        ['just.bin'],
      )
      assert.equal(await blobCount(h), 1)
    })

    it('answers a declared gigabyte with 413 after its first bytes, without reading the rest', async () => {
      const { contentType } = multipartBody({ filename: 'huge.bin', bytes: '' })
      const head =
        `POST /upload-attachment HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.token}\r\n` +
        `Content-Type: ${contentType}\r\nContent-Length: ${2 ** 30}\r\n\r\n`
      const answer = await rawExchange(port, head, (write) => void write(randomBytes(64 * 1024)))
      assert.match(answer, /^HTTP\/1\.1 413 /)
      assert.match(answer, /"message":"File is too large: one upload carries at most 1 MB"/)
    })

    it('lets twenty uploads at once pass the account quota only as far as it goes, with no count drifting', async () => {
      const b = await register(h.client)
      const bytes = randomBytes(300 * 1024)
      const replies = await Promise.all(
        Array.from({ length: 20 }, () => uploadFile(h, b.token, { filename: 'same.bin', bytes })),
      )
      const ok = replies.filter((r) => r.status === 200)
      const refused = replies.filter((r) => r.status === 403)
      assert.equal(ok.length + refused.length, 20, replies.map((r) => r.status).join(' '))
      // Each upload is its own record (no deduplication): 2 MB hold six of 300 KB.
      assert.equal(ok.length, 6)
      for (const r of refused)
        assert.deepEqual(r.json, {
          error: true,
          message: 'Attachment limit reached: an account keeps at most 2 MB of files',
        })
      const list = (await h.client.request('GET', '/get-attachments', { token: b.token })).json as {
        attachments: Array<{ size: number }>
        usage: { bytes: number; limit: number }
      }
      assert.equal(list.attachments.length, 6)
      assert.equal(list.usage.bytes, 6 * bytes.length)
      assert.equal(list.usage.limit, 2 * MB)
      assert.equal(await h.store.attachmentBytes(b.userId), 6 * bytes.length)
    })

    it('keeps no record and no bytes of an upload its client cuts off mid-way', async () => {
      const c = await register(h.client)
      const before = await blobCount(h)
      const { body, contentType } = multipartBody({ filename: 'cut.bin', bytes: randomBytes(600 * 1024) })
      const head =
        `POST /upload-attachment HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${c.token}\r\n` +
        `Content-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`
      const unfinished = () => readdir(join(h.blobDir!, 'tmp')).catch(() => [] as string[])
      await rawExchange(port, head, async (write, end) => {
        write(body.subarray(0, 300 * 1024))
        // Cut once the bytes are being written, so that there is something to leave behind.
        await eventually('the upload is being written', async () => (await unfinished()).length === 1, 30_000)
        end()
      })
      // The server notices the cut when the socket closes: the unfinished file goes, and no record or blob appears.
      await eventually('the unfinished file is removed', async () => (await unfinished()).length === 0, 30_000)
      assert.equal(await blobCount(h), before)
      assert.equal(await h.store.attachmentBytes(c.userId), 0)
      const list = (await h.client.request('GET', '/get-attachments', { token: c.token })).json as {
        attachments: unknown[]
      }
      assert.deepEqual(list.attachments, [])
      // The service goes on answering uploads.
      assert.equal((await uploadFile(h, c.token, { filename: 'after.txt', bytes: 'x' })).status, 200)
    })
  })
}
