// Hands bytes the app fetched to the browser as a download: typed as a download, so nothing of them is ever opened
// here, from a blob: URL that lives only as long as the browser needs to start it.

/** How long a download's blob: URL lives: the browser has started the download well before. */
const DOWNLOAD_URL_MS = 30_000

/** Starts a download of `blob` as `name`. */
export function saveDownload(blob: Blob, name: string): void {
  const url = URL.createObjectURL(new Blob([blob], { type: 'application/octet-stream' }))
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.hidden = true
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), DOWNLOAD_URL_MS)
}
