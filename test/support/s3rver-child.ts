// s3rver in a process of its own (test/support/s3rver.ts starts it): on a free port of 127.0.0.1, silent, storing
// under the directory given, with the buckets given. It prints `{"port":…}` once it listens and stops when its
// standard input closes, so it never outlives the test that started it.
//
// s3rver 3.7.1 lacks two requests the S3 driver makes: ListMultipartUploads (it answers NotImplemented) and
// AbortMultipartUpload (MethodNotAllowed). This process answers them itself from s3rver's own files (an upload in
// progress is the folder <bucket>/._S3rver_uploads/<upload id>, holding its key and parts), without checking
// signatures; every other request goes to s3rver.
//
// s3rver also writes a PUT's body straight into the object's file, so a PUT cut off mid-body (its client killed)
// leaves a short object, where S3 keeps none. This process has its store take the whole body first, and store
// nothing when the connection ends before it: an object appears whole or not at all, as on S3.
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { IncomingMessage, type ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { NO_SUCH_UPLOAD, type PendingUpload, listUploadsAnswer } from './s3-uploads.js'

type Handler = (request: IncomingMessage, response: ServerResponse) => void
interface S3rverServer {
  run(): Promise<{ port: number }>
  close(): Promise<void>
  callback(): Handler
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverServer

const require = createRequire(import.meta.url)
const S3rver = require('s3rver') as S3rverClass
interface StoredObject {
  content: Buffer | NodeJS.ReadableStream
}
const FilesystemStore = require('s3rver/lib/stores/filesystem.js') as {
  prototype: { putObject: (this: unknown, object: StoredObject) => Promise<unknown> }
}
const putObject = FilesystemStore.prototype.putObject
FilesystemStore.prototype.putObject = async function (object) {
  // Only a PUT's body, the request itself; an object assembled from its parts at the end of a multipart upload is
  // whole already.
  if (object.content instanceof IncomingMessage) {
    const pieces: Buffer[] = []
    // Rejects when the client's connection ends before the body does: nothing is stored then.
    for await (const piece of object.content as AsyncIterable<Buffer>) pieces.push(piece)
    object.content = Buffer.concat(pieces)
  }
  return putObject.call(this, object)
}
const [directory = '', ...buckets] = process.argv.slice(2)

function pendingUploads(bucket: string): PendingUpload[] {
  const uploadsDir = join(directory, bucket, '._S3rver_uploads')
  if (!existsSync(uploadsDir)) return []
  return readdirSync(uploadsDir).map((uploadId) => {
    const keyFile = join(uploadsDir, uploadId, 'key')
    return { key: readFileSync(keyFile, 'utf8'), uploadId, initiated: statSync(keyFile).mtime }
  })
}

/** Answers ListMultipartUploads and AbortMultipartUpload; false for any other request. */
function answerUploads(request: IncomingMessage, response: ServerResponse): boolean {
  const url = new URL(request.url ?? '/', 'http://s3rver')
  const [, bucket = '', ...rest] = url.pathname.split('/')
  if (!buckets.includes(bucket)) return false
  const key = decodeURIComponent(rest.join('/'))
  const uploadId = url.searchParams.get('uploadId')
  response.setHeader('content-type', 'application/xml')
  if (request.method === 'GET' && key === '' && url.searchParams.has('uploads')) {
    response.end(listUploadsAnswer(bucket, pendingUploads(bucket), url.searchParams))
    return true
  }
  if (request.method === 'DELETE' && key !== '' && uploadId !== null) {
    const upload = pendingUploads(bucket).find((u) => u.uploadId === uploadId && u.key === key)
    if (upload) {
      rmSync(join(directory, bucket, '._S3rver_uploads', upload.uploadId), { recursive: true, force: true })
      response.statusCode = 204
      response.end()
    } else {
      response.statusCode = 404
      response.end(NO_SUCH_UPLOAD)
    }
    return true
  }
  return false
}

const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  configureBuckets: buckets.map((name) => ({ name })),
})
const s3rverHandler = server.callback.bind(server)
server.callback = () => {
  const handle = s3rverHandler()
  return (request, response) => {
    if (!answerUploads(request, response)) handle(request, response)
  }
}
const { port } = await server.run()
process.stdout.write(`${JSON.stringify({ port })}\n`)
process.stdin.resume()
process.stdin.on('end', () => {
  void server.close().finally(() => process.exit(0))
})
