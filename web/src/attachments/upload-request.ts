// POST /upload-attachment as fetch sends it: multipart/form-data with one part named "file", the
// token in the Authorization header. The outbox uses it (it shows no progress; its answer is read
// as any API answer, with answerOf); the editor's upload, which shows its progress, is upload.ts.
// Nothing here imports the API client, which the sync engine's chunk is handed rather than imports.

export function uploadForm(blob: Blob, name: string): FormData {
  const body = new FormData()
  body.append('file', blob, name)
  return body
}

export function uploadRequest(token: string, blob: Blob, name: string): Promise<Response> {
  return fetch('/upload-attachment', {
    method: 'POST',
    headers: { accept: 'application/json', authorization: `Bearer ${token}` },
    body: uploadForm(blob, name),
  })
}
