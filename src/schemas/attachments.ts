// The attachment endpoints (docs/attachments.md, "API"): answers, errors and OpenAPI operations. The upload's body is
// multipart/form-data, read as a stream by the route, so no body schema validates it.
import { Type } from '@sinclair/typebox'
import { Attachment, ListedAttachment } from '../attachment-shape.js'
import { ATTACHMENT_NOT_FOUND } from '../errors.js'
import { InsufficientStorage, authErrors, errorBody } from './error-responses.js'
import { operationsOf } from './operations.js'

const attachmentOperation = operationsOf('attachments', true)

const ok = Type.Literal(false)

export const AttachmentParams = Type.Object({ attachmentId: Type.String() })
export const FileParams = Type.Object({ attachmentId: Type.String(), '*': Type.Optional(Type.String()) })

const UploadOk = Type.Object(
  { error: ok, attachment: Attachment, message: Type.String() },
  { description: 'The file is stored; `attachment.url` is the link a note’s Markdown makes to it.' },
)
const ListOk = Type.Object(
  {
    error: ok,
    attachments: Type.Array(ListedAttachment),
    usage: Type.Object({ bytes: Type.Integer(), limit: Type.Integer({ description: '0: no limit' }) }),
    message: Type.String(),
  },
  { description: "The user's files, newest first, each with the notes that link to it (live, trashed or in history)." },
)
const DoneOk = Type.Object({ error: ok, message: Type.String() }, { description: 'Done.' })

/** A file's bytes, typed by the file itself. */
const fileBytes = (description: string) => ({
  description,
  content: { '*/*': { schema: Type.Unsafe<string>({ type: 'string', description: "The file's bytes." }) } },
})
const NotModified = { description: 'The If-None-Match names the file as it is: no body.', type: 'null' }

const NotFound = errorBody('The user has no attachment with this id (or by this name).', [ATTACHMENT_NOT_FOUND])
const UploadRefused = errorBody('The body is not multipart/form-data with one file part named "file".')
const TooLarge = errorBody('The file is larger than MAX_ATTACHMENT_MB; answered before the rest is read.', {
  pattern: '^File is too large',
})
const OverQuota = errorBody("The account's files would pass MAX_ATTACHMENT_MB_PER_ACCOUNT.", {
  pattern: '^Attachment limit reached',
})
const RangeRefused = errorBody('The Range starts past the end of the file.', ['Range Not Satisfiable'])

export const uploadAttachment = {
  ...attachmentOperation(
    'uploadAttachment',
    'Upload a file',
    'multipart/form-data with one part named "file", streamed to storage. The type is read from the bytes.',
  ),
  response: {
    200: UploadOk,
    ...authErrors,
    400: UploadRefused,
    403: OverQuota,
    413: TooLarge,
    507: InsufficientStorage,
  },
}

export const getAttachment = {
  ...attachmentOperation(
    'getAttachment',
    "A file's bytes",
    'With ETag, Range (206, 416) and a sandboxing Content-Security-Policy. Only images, PDF, audio and video are inline.',
  ),
  params: FileParams,
  response: {
    200: fileBytes('The whole file, with its ETag, Content-Disposition and Content-Security-Policy.'),
    206: fileBytes('The one range asked for, with Content-Range.'),
    304: NotModified,
    ...authErrors,
    404: NotFound,
    416: RangeRefused,
  },
}

export const getAttachments = {
  ...attachmentOperation('getAttachments', "The user's files and their usage"),
  response: { 200: ListOk, ...authErrors },
}

export const deleteAttachment = {
  ...attachmentOperation(
    'deleteAttachment',
    'Erase a file',
    'At once, whatever links to it: those links then answer 404.',
  ),
  params: AttachmentParams,
  response: { 200: DoneOk, ...authErrors, 404: NotFound },
}
