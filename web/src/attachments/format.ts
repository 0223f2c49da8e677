// How a file's size and type read: "12.4 MB", "PDF". Sizes count in units of 1024 bytes, as the
// service's limits do (MAX_ATTACHMENT_MB is in mebibytes), named KB, MB and GB as people say them.

const UNITS = ['KB', 'MB', 'GB', 'TB']

/** "830 bytes", "12.4 MB", "1 GB": three significant digits at most, no trailing ".0". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return bytes === 1 ? '1 byte' : `${bytes} bytes`
  let value = bytes / 1024
  let unit = 0
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024
    unit++
  }
  const shown = value >= 100 ? Math.round(value).toString() : (Math.round(value * 10) / 10).toString()
  return `${shown} ${UNITS[unit]}`
}

const NAMED: Record<string, string> = {
  'application/pdf': 'PDF',
  'application/json': 'JSON',
  'application/xml': 'XML',
  'application/zip': 'ZIP archive',
  'application/octet-stream': 'File',
  'image/svg+xml': 'SVG image',
  'text/plain': 'Text',
  'text/markdown': 'Markdown',
  'text/csv': 'CSV',
  'text/html': 'HTML',
  'text/javascript': 'JavaScript',
}

/** "PDF", "PNG image", "MP3 audio": what a person calls a file of this type. */
export function describeType(type: string | undefined): string {
  const base = (type ?? '').split(';')[0]!.trim().toLowerCase()
  if (!base) return 'File'
  const named = NAMED[base]
  if (named) return named
  const [family, sub = ''] = base.split('/')
  const short = sub
    .replace(/^(x-|vnd\.)/, '')
    .split(/[.+]/)[0]!
    .toUpperCase()
  if (family === 'image') return `${short} image`
  if (family === 'audio') return `${short} audio`
  if (family === 'video') return `${short} video`
  return short || 'File'
}
