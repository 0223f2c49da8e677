// The editor's upload of a file (POST /upload-attachment, multipart/form-data, one part named
// "file"), the token in the Authorization header: with XMLHttpRequest, the one browser API that
// reports an upload's progress. The outbox's, which shows none, is upload-request.ts.
import type { AttachmentAnswer } from '../../../src/attachment-shape.js'
import { ApiError, SessionEndedError, UNREACHABLE, failureMessage } from '../api'
import { uploadForm } from './upload-request'

export type Attachment = AttachmentAnswer

/**
 * Uploads `blob` as `name`, calling `progress` as its bytes go; rejects with the API's message
 * (ApiError: a 413 too large, a 403 over the account's limit), SessionEndedError on a 401, an
 * ApiError of status 0 when the network failed, or an AbortError when `signal` aborts it.
 */
export function uploadWithProgress(
  token: string,
  blob: Blob,
  name: string,
  progress: (sent: number, total: number) => void,
  signal: AbortSignal,
): Promise<Attachment> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', '/upload-attachment')
    xhr.setRequestHeader('accept', 'application/json')
    xhr.setRequestHeader('authorization', `Bearer ${token}`)
    xhr.upload.addEventListener('progress', (event) => progress(event.loaded, event.lengthComputable ? event.total : 0))
    xhr.addEventListener('load', () => {
      if (xhr.status === 401) return reject(new SessionEndedError())
      let body: unknown
      try {
        body = JSON.parse(xhr.responseText) as unknown
      } catch {
        body = undefined
      }
      const answer = body as { error?: unknown; attachment?: Attachment } | undefined
      if (xhr.status >= 200 && xhr.status < 300 && answer?.error === false && answer.attachment)
        return resolve(answer.attachment)
      const message = failureMessage(xhr.status, xhr.statusText, body, xhr.getResponseHeader('retry-after'))
      reject(new ApiError(message, xhr.status))
    })
    xhr.addEventListener('error', () => reject(new ApiError(UNREACHABLE, 0)))
    xhr.addEventListener('abort', () => reject(new DOMException('The upload was cancelled', 'AbortError')))
    signal.addEventListener('abort', () => xhr.abort(), { once: true })
    xhr.send(uploadForm(blob, name))
  })
}
