// GET /export-notes: every note of the account as one zip, Markdown files or JSON, fetched with the
// token in the Authorization header (never in a URL) and handed to the browser as a download from
// a blob: URL, under the name the server gives in Content-Disposition.
import { ApiError, UNREACHABLE, answerOf, send } from './api'
import { dispositionName } from './disposition'
import { saveDownload } from './save-download'

export type ExportFormat = 'markdown' | 'json'

/** Downloads the export; resolves with the file's name, rejects as call() does (the API's message). */
export async function exportNotes(token: string, format: ExportFormat, trashAndHistory: boolean): Promise<string> {
  const query = new URLSearchParams({ format })
  if (trashAndHistory) {
    query.set('trash', 'true')
    query.set('history', 'true')
  }
  const sent = send('GET', `/export-notes?${query.toString()}`, { token })
  const response = await sent.catch(() => {
    throw new ApiError(UNREACHABLE, 0)
  })
  if (!response.ok) return answerOf<never>(sent)
  const blob = await response.blob().catch(() => {
    throw new ApiError(UNREACHABLE, 0)
  })
  const name = dispositionName(response.headers.get('content-disposition')) ?? `notes-${format}.zip`
  saveDownload(blob, name)
  return name
}
