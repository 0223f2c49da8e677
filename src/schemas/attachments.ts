// The attachment endpoints (docs/attachments.md, "API"): answers, errors and OpenAPI operations. The upload's body is
// multipart/form-data, read as a stream by the route, so no body schema validates it.
import { Type } from '@sinclair/typebox'
import { Attachment, ListedAttachment } from '../attachment-shape.js'
import {
  ATTACHMENT_NOT_FOUND,
  NOT_A_PICTURE,
  PICTURE_TOO_LARGE,
  PICTURE_UNREADABLE,
  THUMBNAIL_WIDTH_REFUSED,
} from '../errors.js'
import { DEFAULT_THUMBNAIL_OPTIONS, THUMBNAIL_WIDTHS } from '../services/thumbnails.js'
import { InsufficientStorage, authErrors, errorBody } from './error-responses.js'
import { answered } from './fields.js'
import { operationsOf } from './operations.js'

const attachmentOperation = operationsOf('attachments', true)

const ok = Type.Literal(false)

export const AttachmentParams = Type.Object({ attachmentId: Type.String() })
export const FileParams = Type.Object({ attachmentId: Type.String(), '*': Type.Optional(Type.String()) })
// The query string is not coerced (app.ts): a width is its digits; a repeated width is an array, refused the same way.
export const ThumbnailQuery = Type.Object({
  width: Type.Optional(
    answered(
      Type.String({
        pattern: `^(${THUMBNAIL_WIDTHS.join('|')})$`,
        description: 'The square the thumbnail fits in, in pixels. Absent: the file named "thumbnail", if it is one.',
      }),
      { invalid: THUMBNAIL_WIDTH_REFUSED },
    ),
  ),
})

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
const ThumbnailBytes = {
  description:
    'With width: the thumbnail, image/webp, ETag "<sha256>-w<width>". Without: the file named "thumbnail", as getAttachment.',
  content: {
    'image/webp': { schema: Type.Unsafe<string>({ type: 'string', description: "The thumbnail's bytes." }) },
    ...fileBytes('').content,
  },
}

const NotFound = errorBody('The user has no attachment with this id (or by this name).', [ATTACHMENT_NOT_FOUND])
const UploadRefused = errorBody('The body is not multipart/form-data with one file part named "file".')
const TooLarge = errorBody('The file is larger than MAX_ATTACHMENT_MB; answered before the rest is read.', {
  pattern: '^File is too large',
})
const OverQuota = errorBody("The account's files would pass MAX_ATTACHMENT_MB_PER_ACCOUNT.", {
  pattern: '^Attachment limit reached',
})
const RangeRefused = errorBody('The Range starts past the end of the file.', ['Range Not Satisfiable'])
const ThumbnailRefused = errorBody('width is not one of 64, 256 and 1024, or the attachment is not a picture.', [
  THUMBNAIL_WIDTH_REFUSED,
  NOT_A_PICTURE,
])
const PictureRefused = errorBody(
  `The picture has more than ${DEFAULT_THUMBNAIL_OPTIONS.maxPixels / 1e6} million pixels, or its bytes cannot be ` +
    'decoded: link the file itself instead.',
  [PICTURE_TOO_LARGE, PICTURE_UNREADABLE],
)

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

export const getThumbnail = {
  ...attachmentOperation(
    'getThumbnail',
    "A picture's thumbnail",
    'A WebP fitting width × width, never enlarged, turned upright, without metadata. Without width, the file named ' +
      '"thumbnail" exactly as getAttachment serves it.',
  ),
  params: AttachmentParams,
  querystring: ThumbnailQuery,
  response: {
    200: ThumbnailBytes,
    206: fileBytes('Without width: the one range asked for, with Content-Range.'),
    304: NotModified,
    ...authErrors,
    400: ThumbnailRefused,
    404: NotFound,
    416: RangeRefused,
    422: PictureRefused,
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
