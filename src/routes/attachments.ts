// The attachment endpoints (docs/attachments.md): thin handlers over AttachmentService and ThumbnailService. The
// upload is read as a stream in a scope of its own, the only one with a multipart parser; a file answer and a
// thumbnail carry the headers that keep an untrusted file from acting in the service's origin.
import { Readable } from 'node:stream'
import multipart from '@fastify/multipart'
import type { Static } from '@sinclair/typebox'
import { create as contentDisposition } from 'content-disposition'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import parseRange from 'range-parser'
import { attachmentAnswer, type AttachmentRecord } from '../attachment-shape.js'
import { ContractError, badRequest } from '../errors.js'
import type { Authenticate } from '../plugins/auth.js'
import {
  type AttachmentParams,
  type FileParams,
  type ThumbnailQuery,
  deleteAttachment,
  getAttachment,
  getAttachments,
  getThumbnail,
  uploadAttachment,
} from '../schemas/attachments.js'
import { servedInline } from '../services/attachment-files.js'
import type { AttachmentMetrics, AttachmentService, UploadOutcome } from '../services/attachments.js'
import type { ThumbnailService, ThumbnailWidth } from '../services/thumbnails.js'

export const UPLOAD_FORM = 'Upload a file as multipart/form-data, in one part named "file"'
export const UPLOAD_CUT_OFF = 'The upload was cut off before the file ended'

/** The most bytes of part headers and boundaries a one-file upload's body carries beside the file. */
const FORM_OVERHEAD = 64 * 1024

/**
 * A HEAD's body: Fastify's HEAD route sets Content-Length from a string or buffer it is given (0 for nothing), but
 * keeps the one set here when the body is a stream.
 */
const NOTHING = () => Readable.from([])

/** What every file answer and thumbnail carries: the type is ours, and the file runs nothing, even opened on its own. */
const SAFETY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "sandbox; default-src 'none'",
  'cache-control': 'private, no-cache',
  vary: 'Authorization',
}
const FILE_HEADERS = { ...SAFETY_HEADERS, 'accept-ranges': 'bytes' }

const NO_METRICS: AttachmentMetrics = { uploaded: () => {}, downloaded: () => {}, thumbnail: () => {} }

/** What the attachment endpoints are made of (app.ts builds them). */
export interface AttachmentEndpoints {
  attachments: AttachmentService
  thumbnails: ThumbnailService
  metrics?: AttachmentMetrics | undefined
}

const declaredLength = (request: FastifyRequest): number | undefined => {
  const value = Number(request.headers['content-length'])
  return Number.isSafeInteger(value) ? value : undefined
}

async function upload(request: FastifyRequest, attachments: AttachmentService): Promise<AttachmentRecord> {
  if (!request.isMultipart()) throw badRequest(UPLOAD_FORM)
  const declared = declaredLength(request)
  if (declared !== undefined && declared > attachments.maxBytes + FORM_OVERHEAD) throw attachments.tooLarge()
  await attachments.checkRoom(request.user._id, declared)
  const part = await request
    .file({ limits: { files: 1, fileSize: attachments.maxBytes + 1, fields: 10, parts: 20 } })
    .catch((err: unknown) => {
      throw err instanceof ContractError ? err : badRequest(UPLOAD_FORM)
    })
  if (!part || part.fieldname !== 'file') throw badRequest(UPLOAD_FORM)
  const raw = request.raw
  const cutOff = () => {
    if (!raw.complete) part.file.destroy(new ContractError(400, UPLOAD_CUT_OFF))
  }
  raw.once('close', cutOff)
  try {
    return await attachments.upload(request.user._id, { filename: part.filename, bytes: part.file })
  } catch (err) {
    // The rest of the file is read and dropped, so the answer reaches a client still sending (unread-body.ts).
    part.file.resume()
    const code = (err as { code?: unknown }).code
    throw code === 'FST_REQ_FILE_TOO_LARGE' ? attachments.tooLarge() : err
  } finally {
    raw.off('close', cutOff)
  }
}

/** How a failed upload counts: the limits' answers by name, the other client errors as refused. */
function failedOutcome(err: unknown): UploadOutcome {
  if (!(err instanceof ContractError) || err.statusCode >= 500) return 'failed'
  if (err.statusCode === 413) return 'too_large'
  if (err.statusCode === 403) return 'over_quota'
  return 'refused'
}

const ifNoneMatch = (request: FastifyRequest, etag: string) =>
  request.headers['if-none-match']?.split(/\s*,\s*/).includes(etag) === true

/** Sends the record's bytes, or the one range asked for; several ranges, or an If-Range of another version, get all. */
async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  { attachments, metrics = NO_METRICS }: AttachmentEndpoints,
  record: AttachmentRecord,
) {
  const etag = `"${record.sha256}"`
  const disposition = servedInline(record.type, record.name) ? 'inline' : 'attachment'
  void reply
    .headers(FILE_HEADERS)
    .header('etag', etag)
    .header('content-disposition', contentDisposition(record.name, { type: disposition }))
  if (ifNoneMatch(request, etag)) return reply.code(304).send()
  const header = request.headers.range
  const ifRange = request.headers['if-range']
  const ranges = header && (ifRange === undefined || ifRange === etag) ? parseRange(record.size, header) : -2
  if (ranges === -1) {
    throw new ContractError(416, 'Range Not Satisfiable', true, { 'content-range': `bytes */${record.size}` })
  }
  void reply.type(record.type)
  if (ranges !== -2 && ranges.type === 'bytes' && ranges.length === 1) {
    const range = ranges[0]!
    void reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${record.size}`)
      .header('content-length', range.end - range.start + 1)
    if (request.method === 'HEAD') return reply.send(NOTHING())
    const bytes = await attachments.read(record, range)
    metrics.downloaded(range.end - range.start + 1)
    return reply.send(bytes)
  }
  void reply.header('content-length', record.size)
  if (request.method === 'HEAD') return reply.send(NOTHING())
  const bytes = record.size === 0 ? '' : await attachments.read(record)
  metrics.downloaded(record.size)
  return reply.send(bytes)
}

/**
 * Sends the thumbnail, made or cached. Its ETag is the file's hash and the width: renaming the file keeps it, and a
 * change to how thumbnails are made must change its form, or browsers keep the old ones. The headers are set once
 * it is made: a refusal carries none of them.
 */
async function sendThumbnail(
  request: FastifyRequest,
  reply: FastifyReply,
  thumbnails: ThumbnailService,
  record: AttachmentRecord,
  width: ThumbnailWidth,
) {
  thumbnails.checkPicture(record)
  const etag = `"${record.sha256}-w${width}"`
  const headers = { ...SAFETY_HEADERS, etag, 'content-disposition': 'inline' }
  if (ifNoneMatch(request, etag)) return reply.headers(headers).code(304).send()
  const thumbnail = await thumbnails.thumbnail(record, width)
  return reply.headers(headers).type('image/webp').send(thumbnail)
}

export async function attachmentRoutes(
  app: FastifyInstance,
  endpoints: AttachmentEndpoints,
  authenticate: Authenticate,
): Promise<void> {
  const { attachments, thumbnails, metrics = NO_METRICS } = endpoints
  await app.register(async (scope) => {
    await scope.register(multipart)
    // Any other type reaches the handler, which names the form it wants.
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null))
    scope.post('/upload-attachment', {
      onRequest: authenticate,
      schema: uploadAttachment,
      handler: async (request) => {
        const record = await upload(request, attachments).catch((err: unknown) => {
          metrics.uploaded(failedOutcome(err), 0)
          throw err
        })
        metrics.uploaded('stored', record.size)
        return { error: false, attachment: attachmentAnswer(record), message: 'Attachment uploaded successfully' }
      },
    })
  })

  /** The file answer of both routes below; `name`, when given, must be the file's. */
  const serveFile = async (request: FastifyRequest, reply: FastifyReply, attachmentId: string, name?: string) =>
    sendFile(request, reply, endpoints, await attachments.find(request.user._id, attachmentId, name))

  // Static, so the router prefers it to the wildcard below. Without width it is the wildcard's answer for a file
  // named "thumbnail"; with one, the thumbnail of whatever picture the id names. Registered first, so the OpenAPI
  // document lists it before the wildcard.
  app.get('/attachments/:attachmentId/thumbnail', {
    onRequest: authenticate,
    schema: getThumbnail,
    handler: async (
      request: FastifyRequest<{ Params: Static<typeof AttachmentParams>; Querystring: Static<typeof ThumbnailQuery> }>,
      reply: FastifyReply,
    ) => {
      const { attachmentId } = request.params
      const { width } = request.query
      if (width === undefined) return serveFile(request, reply, attachmentId, 'thumbnail')
      const record = await attachments.find(request.user._id, attachmentId)
      return sendThumbnail(request, reply, thumbnails, record, Number(width) as ThumbnailWidth)
    },
  })

  // The name segment is a wildcard: a name of 255 bytes, percent-encoded, passes the router's limit for a parameter.
  const serve = {
    onRequest: authenticate,
    schema: getAttachment,
    handler: async (request: FastifyRequest<{ Params: Static<typeof FileParams> }>, reply: FastifyReply) => {
      const { attachmentId, '*': name } = request.params
      return serveFile(request, reply, attachmentId, name === '' ? undefined : name)
    },
  }
  app.get('/attachments/:attachmentId', serve)
  app.get('/attachments/:attachmentId/*', serve)

  app.get('/get-attachments', {
    onRequest: authenticate,
    schema: getAttachments,
    handler: async (request) => ({
      error: false,
      ...(await attachments.list(request.user._id)),
      message: 'Attachments retrieved successfully',
    }),
  })

  app.delete<{ Params: Static<typeof AttachmentParams> }>('/delete-attachment/:attachmentId', {
    onRequest: authenticate,
    schema: deleteAttachment,
    handler: async (request) => {
      await attachments.delete(request.user._id, request.params.attachmentId)
      return { error: false, message: 'Attachment deleted successfully' }
    },
  })
}
