// The S3 blob driver: the shared suite against s3rver (test/support/s3rver.ts), its listing in pages, and
// removeUnfinished, against s3rver and against a stand-in that pages its answer to ListMultipartUploads.
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http'
import { utimesSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { CreateMultipartUploadCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3'
import { s3Blobs } from '../../src/blobs/s3.js'
import type { BlobStorage } from '../../src/blobs/types.js'
import { blobContract, newBlobId, sourceOf } from '../support/blob-contract.js'
import { NO_SUCH_UPLOAD, type PendingUpload, listUploadsAnswer } from '../support/s3-uploads.js'
import { type LocalS3, startLocalS3 } from '../support/s3rver.js'

// One s3rver for the file, a bucket for each suite: list() shows a whole bucket.
let started: Promise<LocalS3> | undefined
const localS3 = () => (started ??= startLocalS3(['attachments', 'listing', 'leftovers']))
after(async () => {
  if (started) await (await started).close()
})

blobContract({
  name: 's3 (s3rver)',
  unitBytes: 5 * 2 ** 20,
  keyOf: (id) => id,
  async open() {
    const local = await localS3()
    const blobs = s3Blobs(local.optionsFor('attachments'))
    return {
      blobs,
      unfinished: async () => local.uploads('attachments').length,
      close: () => blobs.close(),
    }
  },
})

describe('s3 blobs: listing', { timeout: 120_000 }, () => {
  let blobs: BlobStorage
  before(async () => {
    blobs = s3Blobs({ ...(await localS3()).optionsFor('listing'), listPageKeys: 2 })
  })
  after(() => blobs?.close())

  it('lists page by page, every blob once', async () => {
    const written = new Set<string>()
    for (let i = 0; i < 5; i += 1) written.add((await blobs.write(newBlobId(), sourceOf(randomBytes(i)), 10)).key)
    const listed: string[] = []
    for await (const blob of blobs.list()) listed.push(blob.key)
    assert.deepEqual(listed.sort(), [...written].sort())
  })
})

/** Answers ListMultipartUploads two uploads a page, and AbortMultipartUpload for the uploads it still has. */
function uploadsStandIn(uploads: Array<PendingUpload & { gone?: boolean }>, bucket: string) {
  const pending = [...uploads]
  const aborted: string[] = []
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://localhost')
    response.setHeader('content-type', 'application/xml')
    if (
      request.method === 'GET' &&
      url.pathname.replace(/\/$/, '') === `/${bucket}` &&
      url.searchParams.has('uploads')
    ) {
      url.searchParams.set('max-uploads', '2')
      response.end(listUploadsAnswer(bucket, pending, url.searchParams))
      return
    }
    const uploadId = url.searchParams.get('uploadId')
    if (request.method === 'DELETE' && uploadId) {
      const key = decodeURIComponent(url.pathname.slice(`/${bucket}/`.length))
      // One listed but `gone` was completed or aborted since: S3 answers NoSuchUpload.
      const at = pending.findIndex((u) => u.key === key && u.uploadId === uploadId && !u.gone)
      if (at < 0) {
        response.statusCode = 404
        response.end(NO_SUCH_UPLOAD)
        return
      }
      aborted.push(`${key} ${uploadId}`)
      pending.splice(at, 1)
      response.statusCode = 204
      response.end()
      return
    }
    response.statusCode = 501
    response.end('<Error><Code>NotImplemented</Code><Message>Not in this stand-in.</Message></Error>')
  })
  return { server, aborted, pending }
}

describe('s3 blobs: removeUnfinished', { timeout: 120_000 }, () => {
  it('aborts the uploads a killed process left, begun before the time given, and no others', async () => {
    const local = await localS3()
    const options = local.optionsFor('leftovers')
    const blobs = s3Blobs(options)
    const client = new S3Client({
      endpoint: options.endpoint,
      region: options.region,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    })
    try {
      const finished = await blobs.write(newBlobId(), sourceOf(randomBytes(1000)), 1000)
      // What a process killed mid-write leaves: an upload begun, a part sent, never completed.
      const begin = async () => {
        const Key = newBlobId()
        const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: 'leftovers', Key }))
        const Body = randomBytes(1000)
        await client.send(new UploadPartCommand({ Bucket: 'leftovers', Key, UploadId, PartNumber: 1, Body }))
        return UploadId as string
      }
      const stale = await begin()
      const recent = await begin()
      const longAgo = new Date(Date.now() - 2 * 3600_000)
      utimesSync(join(local.uploadFolder('leftovers', stale), 'key'), longAgo, longAgo)

      assert.deepEqual(local.uploads('leftovers').sort(), [stale, recent].sort())
      assert.equal(await blobs.removeUnfinished(new Date(Date.now() - 3600_000)), 1)
      assert.deepEqual(local.uploads('leftovers'), [recent])
      assert.ok((await blobs.read(finished.key)) !== undefined, 'finished blobs stay')
    } finally {
      client.destroy()
      await blobs.close()
    }
  })

  it('aborts the uploads of its keys begun before the time given, through every page of the listing', async () => {
    const now = Date.now()
    const old = new Date(now - 3 * 3600_000)
    const recent = new Date(now - 60_000)
    const stale = [newBlobId(), newBlobId(), newBlobId()]
    const standIn = uploadsStandIn(
      [
        { key: stale[0] as string, uploadId: 'u1', initiated: old },
        { key: newBlobId(), uploadId: 'u2', initiated: recent },
        { key: stale[1] as string, uploadId: 'u3', initiated: old },
        { key: 'backups/notes.tar', uploadId: 'u4', initiated: old }, // not a name the driver makes
        { key: stale[2] as string, uploadId: 'u5', initiated: old },
        { key: stale[2] as string, uploadId: 'u6', initiated: old }, // a second upload to the same key
        { key: newBlobId(), uploadId: 'u7', initiated: old, gone: true },
      ],
      'attachments',
    )
    standIn.server.listen(0, '127.0.0.1')
    await new Promise((resolve) => standIn.server.once('listening', resolve))
    const { port } = standIn.server.address() as AddressInfo
    const blobs = s3Blobs({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      bucket: 'attachments',
      accessKeyId: 'test',
      secretAccessKey: 'test',
      forcePathStyle: true,
    })
    try {
      assert.equal(await blobs.removeUnfinished(new Date(now - 3600_000)), 4)
      assert.deepEqual(
        standIn.aborted.sort(),
        [`${stale[0]} u1`, `${stale[1]} u3`, `${stale[2]} u5`, `${stale[2]} u6`].sort(),
      )
      assert.deepEqual(standIn.pending.map((u) => u.uploadId).sort(), ['u2', 'u4', 'u7'])
    } finally {
      await blobs.close()
      standIn.server.close()
    }
  })
})
