// Multipart uploads in progress, as S3's ListMultipartUploads answers them: for the two local servers of the S3
// driver's tests that must answer it themselves (s3rver lacks it: test/support/s3rver-child.ts, test/blobs/s3.test.ts).

export interface PendingUpload {
  key: string
  uploadId: string
  initiated: Date
}

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * The ListMultipartUploads answer for the query `query` (key-marker, upload-id-marker, max-uploads): the uploads
 * after the markers, ordered by key and then upload id, `max-uploads` of them (1000 unless given).
 */
export function listUploadsAnswer(bucket: string, uploads: PendingUpload[], query: URLSearchParams): string {
  const keyMarker = query.get('key-marker') ?? ''
  const idMarker = query.get('upload-id-marker') ?? ''
  const pageSize = Number(query.get('max-uploads') ?? 1000)
  const ordered = [...uploads].sort((a, b) =>
    a.key === b.key ? (a.uploadId < b.uploadId ? -1 : 1) : a.key < b.key ? -1 : 1,
  )
  const after = ordered.filter((u) => u.key > keyMarker || (u.key === keyMarker && u.uploadId > idMarker))
  const page = after.slice(0, pageSize)
  const last = page.at(-1)
  const truncated = after.length > page.length && last !== undefined
  const next = truncated
    ? `<NextKeyMarker>${xml(last.key)}</NextKeyMarker><NextUploadIdMarker>${xml(last.uploadId)}</NextUploadIdMarker>`
    : ''
  const listed = page
    .map(
      (u) =>
        `<Upload><Key>${xml(u.key)}</Key><UploadId>${xml(u.uploadId)}</UploadId>` +
        `<Initiated>${u.initiated.toISOString()}</Initiated></Upload>`,
    )
    .join('')
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
    `<Bucket>${xml(bucket)}</Bucket><KeyMarker>${xml(keyMarker)}</KeyMarker>` +
    `<UploadIdMarker>${xml(idMarker)}</UploadIdMarker>${next}<MaxUploads>${pageSize}</MaxUploads>` +
    `<IsTruncated>${truncated}</IsTruncated>${listed}</ListMultipartUploadsResult>`
  )
}

export const NO_SUCH_UPLOAD =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>'
