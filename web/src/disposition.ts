// The file name a download's Content-Disposition header gives (RFC 6266), for the export's download.

/** The file name of a Content-Disposition header (RFC 6266: filename* first, then filename). */
export function dispositionName(header: string | null): string | undefined {
  if (!header) return undefined
  const encoded = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(header)
  if (encoded) {
    try {
      return decodeURIComponent(encoded[1]!.trim())
    } catch {
      // a malformed escape: the plain filename below, if any
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(header)
  const name = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2]?.trim()
  return name || undefined
}
