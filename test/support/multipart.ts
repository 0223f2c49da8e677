// multipart/form-data bodies built by hand, so a test controls every byte: the part's name, a file name no browser
// would send (a path, CR/LF, an RTL override), and the declared length.
import { randomBytes } from 'node:crypto'

export interface FilePart {
  /** The form field's name; "file" unless given. */
  field?: string
  filename: string
  /** The part's Content-Type, which the service never trusts. */
  type?: string
  bytes: Buffer | string
}

/** The body and its Content-Type for one file part (and any plain fields before it). */
export function multipartBody(
  part: FilePart,
  fields: Record<string, string> = {},
): { body: Buffer; contentType: string } {
  const boundary = `----notes-test-${randomBytes(8).toString('hex')}`
  const chunks: Buffer[] = []
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`))
  }
  const filename = part.filename.replace(/"/g, '%22')
  chunks.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${part.field ?? 'file'}"; filename="${filename}"\r\n` +
        `Content-Type: ${part.type ?? 'application/octet-stream'}\r\n\r\n`,
    ),
    Buffer.isBuffer(part.bytes) ? part.bytes : Buffer.from(part.bytes),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  )
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` }
}

/** A PNG of 1×1 pixel, as a real encoder writes it. */
export const TINY_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360f8cfc0f01f0005000201' +
    'e5273b6f0000000049454e44ae426082',
  'hex',
)

/** A GIF header followed by HTML: a browser sniffing it could run the script; the bytes say GIF. */
export const GIF_HTML_POLYGLOT = Buffer.concat([
  Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'),
  Buffer.from('<html><script>alert(document.domain)</script></html>'),
])

export const SVG_WITH_SCRIPT = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>'
