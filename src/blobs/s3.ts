// Blobs as objects of one S3 bucket (or of a service that speaks its API), named by the attachment's id: the hash is
// known only once the bytes have passed, so it cannot name them; the attachment's record keeps the hash and size.
// A write streams through an upload in parts of PART_BYTES, QUEUE_SIZE of them sent at once, so a write holds a few
// parts in memory (some 15 to 20 MiB), whatever its size; its object appears only when the upload completes. A
// write that fails or passes its limit aborts its multipart upload, which erases the parts sent; the parts of an
// upload whose abort failed, or of a process killed mid-write, are erased by removeUnfinished (a bucket lifecycle
// rule that aborts incomplete multipart uploads does the same). The bucket is the driver's: list() and
// removeUnfinished look only at names of the shape it makes, but a bucket shared with other data is still better
// avoided. Nothing is ever presigned.
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NoSuchUpload,
  S3Client,
} from '@aws-sdk/client-s3'
import { Upload } from '@aws-sdk/lib-storage'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { ByteMeter, checkBlobId } from './metering.js'
import { BLOB_ID, BlobKeyError, type BlobStorage, BlobTooLargeError, type ListedBlob } from './types.js'

export interface S3BlobOptions {
  /** The service's URL when it is not AWS's own (MinIO, Ceph, a local test server). */
  endpoint?: string
  region: string
  bucket: string
  /** Without both keys the SDK's usual credential chain applies (environment, profile, instance role). */
  accessKeyId?: string
  secretAccessKey?: string
  /** Bucket in the path (`endpoint/bucket/key`) rather than in the host name, as most S3-compatible services need. */
  forcePathStyle: boolean
  /** Keys per listing request (at most 1000, S3's limit); small ones let a test see list() page. */
  listPageKeys?: number
}

/** S3's smallest part but the last. */
const PART_BYTES = 5 * 2 ** 20
const QUEUE_SIZE = 2

function checkKey(key: string): void {
  if (!BLOB_ID.test(key)) throw new BlobKeyError(key)
}

/** The first `length` bytes of `body`, for a server that answers a range with more than was asked. */
function firstBytes(body: Readable, length: number): Readable {
  return Readable.from(
    (async function* () {
      let left = length
      for await (const chunk of body as AsyncIterable<Buffer>) {
        const piece = chunk.subarray(0, left)
        left -= piece.length
        yield piece
        if (left === 0) return // leaving the loop destroys `body`
      }
    })(),
    { objectMode: false },
  )
}

export function s3Blobs(options: S3BlobOptions): BlobStorage {
  const { bucket } = options
  const client = new S3Client({
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    ...(options.endpoint !== undefined && { endpoint: options.endpoint }),
    ...(options.accessKeyId !== undefined &&
      options.secretAccessKey !== undefined && {
        credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
      }),
  })
  const pageKeys = options.listPageKeys ?? 1000

  return {
    driver: 's3',

    async write(id, source, limit) {
      try {
        checkBlobId(id)
      } catch (err) {
        source.destroy()
        throw err
      }
      const meter = new ByteMeter(limit)
      const body = new Transform({
        transform(chunk, _encoding, done) {
          try {
            done(null, meter.add(chunk))
          } catch (err) {
            done(err as Error)
          }
        },
      })
      // What failed first on the way in (the source, or the limit), or undefined once all of it passed.
      const piped = pipeline(source, body).then(
        () => undefined,
        (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
      )
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: id, Body: body },
        partSize: PART_BYTES,
        queueSize: QUEUE_SIZE,
      })
      try {
        // Fails once the body fails, after aborting the multipart upload when one was begun.
        await upload.done()
      } catch (err) {
        // An upload that failed on its own stops the source too; one that failed for the source keeps its reason.
        body.destroy(err as Error)
        const inbound = await piped
        if (meter.tooLarge) throw new BlobTooLargeError(limit)
        throw inbound ?? err
      }
      const inbound = await piped
      if (inbound !== undefined) throw inbound // not reached: the upload ends only with its body
      return { key: id, size: meter.size, sha256: meter.sha256() }
    },

    async read(key, range) {
      checkKey(key)
      try {
        const answer = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: key,
            ...(range && { Range: `bytes=${range.start}-${range.end}` }),
          }),
        )
        const body = answer.Body as Readable
        const wanted = range && range.end - range.start + 1
        // s3rver reads `bytes=0-0` as the whole object; S3 itself never sends more than the range.
        if (wanted !== undefined && (answer.ContentLength ?? 0) > wanted) return firstBytes(body, wanted)
        return body
      } catch (err) {
        if (err instanceof NoSuchKey) return undefined
        throw err
      }
    },

    async remove(key) {
      checkKey(key)
      // Deleting an absent object succeeds in S3.
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }))
    },

    async *list(): AsyncIterable<ListedBlob> {
      let token: string | undefined
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, MaxKeys: pageKeys, ContinuationToken: token }),
        )
        for (const object of page.Contents ?? []) {
          if (object.Key === undefined || !BLOB_ID.test(object.Key)) continue
          // S3 always dates an object; were one undated, it reads as new, so no sweep takes it for old.
          yield { key: object.Key, size: object.Size ?? 0, writtenOn: object.LastModified ?? new Date() }
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined
      } while (token !== undefined)
    },

    async removeUnfinished(before) {
      let removed = 0
      let keyMarker: string | undefined
      let uploadIdMarker: string | undefined
      do {
        const page = await client.send(
          new ListMultipartUploadsCommand({ Bucket: bucket, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }),
        )
        for (const upload of page.Uploads ?? []) {
          const { Key: key, UploadId: uploadId, Initiated: initiated } = upload
          if (key === undefined || uploadId === undefined || !BLOB_ID.test(key)) continue
          if (initiated === undefined || initiated >= before) continue
          try {
            await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))
            removed += 1
          } catch (err) {
            if (!(err instanceof NoSuchUpload)) throw err // completed or aborted since the listing
          }
        }
        keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined
        uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined
      } while (keyMarker !== undefined)
      return removed
    },

    async close() {
      client.destroy()
    },
  }
}
