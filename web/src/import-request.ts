// POST /import-notes with XMLHttpRequest, the one browser API that reports an upload's progress:
// the file as multipart/form-data (one part named "file"), the token in the Authorization header.
// Its answer streams in while the import runs, and is read as it grows (import-lines.ts).
import { ApiError, SessionEndedError, UNREACHABLE, failureMessage } from './api'
import { type ImportCounts, ImportLines, type ImportLine, type ImportSummary } from './import-lines'

export interface ImportWatch {
  /** The file's bytes on their way; total 0 when the browser does not know it. */
  uploaded: (sent: number, total: number) => void
  /** The server's counts, a few times a second at most. */
  progressed: (counts: ImportCounts) => void
}

/** What the answer ended with when it ended with neither a summary nor an error. */
export const CUT_SHORT = 'The connection ended before the import finished.'

/** The import began and then stopped: what it wrote until then stays. */
export class ImportStoppedError extends ApiError {
  override name = 'ImportStoppedError'
}

/**
 * Imports `file`; resolves with the summary, rejects with the API's message (ApiError: a 400 for
 * a format it does not read, 403 over the account's quota, 413 too large), ImportStoppedError
 * with the error the answer ended with or CUT_SHORT, SessionEndedError on a 401, an ApiError of status 0 when the network
 * failed before the import answered.
 */
export function importNotes(token: string, file: File, watch: ImportWatch): Promise<ImportSummary> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    const lines = new ImportLines()
    let outcome: ImportLine | undefined
    let answered = false
    const streaming = () => xhr.status === 200 && /x-ndjson/.test(xhr.getResponseHeader('content-type') ?? '')
    const read = (found: ImportLine[]) => {
      answered ||= found.length > 0
      for (const line of found) {
        if ('progress' in line) watch.progressed(line.progress)
        else outcome ??= line
      }
    }
    xhr.open('POST', '/import-notes')
    xhr.setRequestHeader('accept', 'application/x-ndjson, application/json')
    xhr.setRequestHeader('authorization', `Bearer ${token}`)
    xhr.upload.addEventListener('progress', (event) =>
      watch.uploaded(event.loaded, event.lengthComputable ? event.total : 0),
    )
    xhr.addEventListener('progress', () => {
      if (streaming()) read(lines.take(xhr.responseText))
    })
    xhr.addEventListener('load', () => {
      if (xhr.status === 401) return reject(new SessionEndedError())
      if (!streaming()) {
        let body: unknown
        try {
          body = JSON.parse(xhr.responseText) as unknown
        } catch {
          body = undefined
        }
        const message = failureMessage(xhr.status, xhr.statusText, body, xhr.getResponseHeader('retry-after'))
        return reject(new ApiError(message, xhr.status))
      }
      read(lines.finish(xhr.responseText))
      if (outcome && 'summary' in outcome) resolve(outcome.summary)
      else reject(new ImportStoppedError(outcome && 'failed' in outcome ? outcome.failed : CUT_SHORT, xhr.status))
    })
    xhr.addEventListener('error', () =>
      reject(answered ? new ImportStoppedError(CUT_SHORT, 0) : new ApiError(UNREACHABLE, 0)),
    )
    const body = new FormData()
    body.append('file', file, file.name)
    xhr.send(body)
  })
}
