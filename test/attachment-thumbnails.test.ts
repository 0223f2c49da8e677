// Thumbnails of picture attachments on both stores, through inject and a real socket: a WebP of the asked width,
// turned upright and stripped of metadata, served with the file answers' safety headers, cached and conditional;
// the route's refusals; the file named "thumbnail" still served without width; pictures claiming too many pixels
// refused from their header alone. Then ThumbnailService alone: its bound on jobs at once and its sharing of one
// making between requests, with bytes a test hands over when it chooses.
import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import sharp from 'sharp'
import type { AttachmentRecord } from '../src/attachment-shape.js'
import { type ThumbnailSource, ThumbnailService } from '../src/services/thumbnails.js'
import { metricSample, uploaded } from './support/attachments.js'
import { type Account, type Harness, type Reply, register, startHarness, targets } from './support/harness.js'
import { BLUE, RED, near, picture, pixelAt, pngClaiming, sidewaysPhoto, twoFrameGif } from './support/pictures.js'

const header = (reply: Reply, name: string) => reply.headers[name] as string | undefined
const thumbnailUrl = (file: { _id: string }, width?: number | string) =>
  `/attachments/${file._id}/thumbnail${width === undefined ? '' : `?width=${width}`}`
const made = (h: Harness) => metricSample(h, 'attachment_thumbnails_total{source="made"}')
const fromCache = (h: Harness) => metricSample(h, 'attachment_thumbnails_total{source="cache"}')

for (const { mode, storeKind } of targets()) {
  describe(`attachment thumbnails (${mode}, ${storeKind})`, () => {
    let h: Harness
    let a: Account
    before(async () => {
      h = await startHarness(mode, { storeKind })
      a = await register(h.client)
    })
    after(async () => h.close())

    it("makes a WebP that fits the width, turned upright, without the photo's metadata, with the safety headers", async () => {
      const photo = await sidewaysPhoto()
      const stored = await sharp(photo).metadata()
      assert.equal(stored.orientation, 6)
      assert.match(stored.exif?.toString('latin1') ?? '', /Secret Model 7/, 'the upload carries EXIF')
      const file = await uploaded(h, a.token, { filename: 'IMG_0001.jpg', bytes: photo })
      assert.equal(file.type, 'image/jpeg')

      for (const width of [64, 256, 1024]) {
        const got = await h.client.request('GET', thumbnailUrl(file, width), { token: a.token })
        assert.equal(got.status, 200, got.text)
        assert.equal(header(got, 'content-type'), 'image/webp')
        assert.equal(header(got, 'x-content-type-options'), 'nosniff')
        assert.equal(header(got, 'content-security-policy'), "sandbox; default-src 'none'")
        assert.equal(header(got, 'cache-control'), 'private, no-cache')
        assert.match(header(got, 'vary') ?? '', /\bAuthorization\b/)
        assert.equal(header(got, 'etag'), `"${file.sha256}-w${width}"`)
        assert.equal(header(got, 'content-disposition'), 'inline')
        const thumbnail = await sharp(got.bytes).metadata()
        assert.equal(thumbnail.format, 'webp')
        // Shown upright the photo is 3000 × 4000: the height takes the width asked for.
        assert.deepEqual([thumbnail.width, thumbnail.height], [Math.round((width * 3000) / 4000), width])
        for (const key of ['exif', 'orientation', 'icc', 'xmp', 'iptc'] as const) {
          assert.equal(thumbnail[key], undefined, `${key} at width ${width}`)
        }
        assert.doesNotMatch(got.bytes.toString('latin1'), /Secret Model|TestCam/)
        // Turned clockwise: the stored left half (red) is now the top.
        assert.ok(near(await pixelAt(got.bytes, thumbnail.width / 2, 2), RED), 'red on top')
        assert.ok(near(await pixelAt(got.bytes, thumbnail.width / 2, width - 3), BLUE), 'blue below')
      }
    })

    it('makes a thumbnail once: the same one again comes from the cache, and a matching If-None-Match is a 304', async () => {
      const file = await uploaded(h, a.token, { filename: 'plain.png', bytes: await picture(600, 400) })
      const [made0, cached0] = [await made(h), await fromCache(h)]
      const first = await h.client.request('GET', thumbnailUrl(file, 256), { token: a.token })
      assert.equal(first.status, 200)
      assert.deepEqual([await made(h), await fromCache(h)], [made0 + 1, cached0])
      const second = await h.client.request('GET', thumbnailUrl(file, 256), { token: a.token })
      assert.equal(second.status, 200)
      assert.deepEqual(second.bytes, first.bytes)
      assert.deepEqual([await made(h), await fromCache(h)], [made0 + 1, cached0 + 1])
      assert.deepEqual(
        await sharp(first.bytes)
          .metadata()
          .then((m) => [m.width, m.height]),
        [256, 171],
      )

      const etag = `"${file.sha256}-w256"`
      const again = await h.client.request('GET', thumbnailUrl(file, 256), {
        token: a.token,
        headers: { 'if-none-match': etag },
      })
      assert.equal(again.status, 304)
      assert.equal(again.bytes.length, 0)
      assert.equal(header(again, 'etag'), etag)
      // The file's own ETag, or another width's, is another representation.
      for (const other of [`"${file.sha256}"`, `"${file.sha256}-w64"`]) {
        const reply = await h.client.request('GET', thumbnailUrl(file, 256), {
          token: a.token,
          headers: { 'if-none-match': other },
        })
        assert.equal(reply.status, 200, other)
      }
      assert.equal(await made(h), made0 + 1)
    })

    it('never enlarges, and makes the first frame of an animated GIF', async () => {
      const dot = await uploaded(h, a.token, { filename: 'dot.png', bytes: await picture(1, 1) })
      const tiny = await h.client.request('GET', thumbnailUrl(dot, 1024), { token: a.token })
      assert.equal(tiny.status, 200)
      assert.deepEqual(
        await sharp(tiny.bytes)
          .metadata()
          .then((m) => [m.width, m.height]),
        [1, 1],
      )

      const gif = await uploaded(h, a.token, { filename: 'blink.gif', bytes: await twoFrameGif() })
      assert.equal(gif.type, 'image/gif')
      const got = await h.client.request('GET', thumbnailUrl(gif, 64), { token: a.token })
      assert.equal(got.status, 200)
      const thumbnail = await sharp(got.bytes, { animated: true }).metadata()
      assert.deepEqual([thumbnail.format, thumbnail.width, thumbnail.height], ['webp', 20, 10])
      assert.ok((thumbnail.pages ?? 1) === 1, 'one frame')
      assert.ok(near(await pixelAt(got.bytes, 10, 5), RED), 'the first frame')
    })

    it("refuses a width not offered and a file that is not a picture with 400, another account's or a malformed id with 404", async () => {
      const photo = await uploaded(h, a.token, { filename: 'p.png', bytes: await picture(10, 10) })
      const text = await uploaded(h, a.token, { filename: 'notes.txt', bytes: 'not a picture' })
      const svg = await uploaded(h, a.token, {
        filename: 'logo.svg',
        bytes: '<svg xmlns="http://www.w3.org/2000/svg"/>',
      })
      const widthRefused = { error: true, message: 'width must be 64, 256 or 1024' }
      for (const query of ['width=100', 'width=', 'width=0256', 'width=64&width=256', 'width=256.0']) {
        const reply = await h.client.request('GET', `/attachments/${photo._id}/thumbnail?${query}`, { token: a.token })
        assert.equal(reply.status, 400, query)
        assert.deepEqual(reply.json, widthRefused, query)
      }
      for (const file of [text, svg]) {
        const reply = await h.client.request('GET', thumbnailUrl(file, 64), { token: a.token })
        assert.equal(reply.status, 400, file.name)
        assert.deepEqual(reply.json, { error: true, message: 'Only pictures have thumbnails' })
      }

      const b = await register(h.client)
      for (const path of [
        thumbnailUrl(photo, 64),
        thumbnailUrl({ _id: 'not-an-id' }, 64),
        thumbnailUrl({ _id: '0123456789abcdef01234567' }, 64),
      ]) {
        const reply = await h.client.request('GET', path, { token: b.token })
        assert.equal(reply.status, 404, path)
        assert.deepEqual(reply.json, { error: true, message: 'Attachment not found' })
      }
      assert.equal((await h.client.request('GET', thumbnailUrl(photo, 64))).status, 401)
    })

    it('serves the file named "thumbnail" without width, exactly as the name segment does', async () => {
      const bytes = Buffer.from('a file that happens to be called thumbnail')
      const named = await uploaded(h, a.token, { filename: 'thumbnail', bytes })
      const other = await uploaded(h, a.token, { filename: 'other.png', bytes: await picture(10, 10) })
      const got = await h.client.request('GET', thumbnailUrl(named), { token: a.token })
      assert.equal(got.status, 200)
      assert.deepEqual(got.bytes, bytes)
      const plain = await h.client.request('GET', `/attachments/${named._id}`, { token: a.token })
      for (const name of [
        'content-type',
        'content-disposition',
        'etag',
        'accept-ranges',
        'content-security-policy',
        'x-content-type-options',
        'cache-control',
      ]) {
        assert.equal(header(got, name), header(plain, name), name)
      }
      const part = await h.client.request('GET', thumbnailUrl(named), {
        token: a.token,
        headers: { range: 'bytes=2-5' },
      })
      assert.equal(part.status, 206)
      assert.deepEqual(part.bytes, bytes.subarray(2, 6))
      const notModified = await h.client.request('GET', thumbnailUrl(named), {
        token: a.token,
        headers: { 'if-none-match': `"${named.sha256}"` },
      })
      assert.equal(notModified.status, 304)
      const wrongName = await h.client.request('GET', thumbnailUrl(other), { token: a.token })
      assert.equal(wrongName.status, 404)
      assert.deepEqual(wrongName.json, { error: true, message: 'Attachment not found' })
      // The width makes a thumbnail of any picture, whatever it is called.
      assert.equal((await h.client.request('GET', thumbnailUrl(other, 64), { token: a.token })).status, 200)
    })

    it('refuses a picture claiming more than 100 megapixels from its header, undecoded, and stays healthy', async () => {
      const rssBefore = process.memoryUsage().rss
      const madeBefore = await made(h)
      // 2.5 billion pixels (7.5 GB decoded) and 120 million (360 MB): both past the bound, in 68 bytes each.
      for (const [width, height] of [
        [50_000, 50_000],
        [12_000, 10_000],
      ] as const) {
        const bomb = await uploaded(h, a.token, { filename: 'bomb.png', bytes: pngClaiming(width, height) })
        assert.equal(bomb.type, 'image/png')
        assert.ok(bomb.size < 100)
        const reply = await h.client.request('GET', thumbnailUrl(bomb, 256), { token: a.token })
        assert.equal(reply.status, 422, `${width} × ${height}`)
        assert.deepEqual(reply.json, { error: true, message: 'The picture is too large to make a thumbnail of' })
        // Refused again, never cached as anything.
        assert.equal((await h.client.request('GET', thumbnailUrl(bomb, 64), { token: a.token })).status, 422)
      }
      // A picture within the bound whose pixels are not PNG data: unreadable, not too large.
      const broken = await uploaded(h, a.token, {
        filename: 'broken.png',
        bytes: pngClaiming(100, 100, Buffer.from('not zlib data at all')),
      })
      const unreadable = await h.client.request('GET', thumbnailUrl(broken, 64), { token: a.token })
      assert.equal(unreadable.status, 422)
      assert.deepEqual(unreadable.json, { error: true, message: 'The picture cannot be read to make a thumbnail of' })
      assert.equal(await made(h), madeBefore)

      assert.equal((await h.client.request('GET', '/healthz')).status, 200)
      const small = await uploaded(h, a.token, { filename: 'ok.png', bytes: await picture(300, 300) })
      assert.equal((await h.client.request('GET', thumbnailUrl(small, 64), { token: a.token })).status, 200)
      // Decoding either claim would take hundreds of megabytes at least; reading headers takes none.
      const grown = process.memoryUsage().rss - rssBefore
      assert.ok(grown < 300 * 2 ** 20, `resident memory grew by ${Math.round(grown / 2 ** 20)} MB`)
    })
  })
}

describe('ThumbnailService', () => {
  /** Reads whose bytes the test hands over when it chooses, and how many were open at once. */
  function heldReads() {
    const waiting: PassThrough[] = []
    let wake: (() => void) | undefined
    const reads = { started: 0, open: 0, most: 0 }
    const read = async () => {
      const stream = new PassThrough()
      reads.started++
      reads.open++
      reads.most = Math.max(reads.most, reads.open)
      stream.on('end', () => reads.open--)
      waiting.push(stream)
      wake?.()
      return stream
    }
    const next = async (): Promise<PassThrough> => {
      while (waiting.length === 0) await new Promise<void>((resolve) => (wake = resolve))
      return waiting.shift()!
    }
    return { read, next, reads }
  }

  const pictureRecord = (n: number): AttachmentRecord => ({
    _id: `0123456789abcdef0123456${n}`,
    name: `${n}.png`,
    type: 'image/png',
    size: 0,
    sha256: '0'.repeat(64),
    createdOn: new Date(0).toISOString(),
    userId: 'u',
    blobKey: `k${n}`,
  })

  it('makes at most `jobs` thumbnails at once, one for requests that come together, and none for a cached one', async () => {
    const { read, next, reads } = heldReads()
    const dot = await picture(8, 8)
    const sources: ThumbnailSource[] = []
    const thumbnails = new ThumbnailService(read, (source) => sources.push(source), { jobs: 2 })
    const records = [1, 2, 3, 4, 5].map(pictureRecord)
    const pending = records.map((record) => thumbnails.thumbnail(record, 64))
    const together = thumbnails.thumbnail(records[0]!, 64)
    // Every read is held until the test ends it: without the bound all five would be open at once.
    for (let i = 0; i < records.length; i++) (await next()).end(dot)
    const made = await Promise.all(pending)
    assert.deepEqual(await together, made[0])
    assert.equal(reads.most, 2)
    assert.equal(reads.started, 5)
    assert.deepEqual(sources.sort(), ['cache', 'made', 'made', 'made', 'made', 'made'])

    assert.deepEqual(await thumbnails.thumbnail(records[3]!, 64), made[3])
    assert.equal(reads.started, 5, 'served from the cache')
    const wider = thumbnails.thumbnail(records[3]!, 256)
    ;(await next()).end(dot)
    await wider
    assert.equal(reads.started, 6, 'another width is another thumbnail')
  })
})
