// Evernote exports (.enex) written as Evernote writes them: the DOCTYPE line, note fields, ENML in CDATA, resources
// in base64 after the content. Each generator also returns what every note should become once imported.
import { createHash, randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'

export const ENEX_PROLOG =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<!DOCTYPE en-export SYSTEM "http://xml.evernote.com/pub/evernote-export4.dtd">\n' +
  '<en-export export-date="20240301T101500Z" application="Evernote" version="10.76.2">\n'
export const ENEX_END = '</en-export>\n'

export interface EnexResourceSpec {
  bytes: Buffer
  mime: string
  /** Written as <resource-attributes><file-name>; absent, the reader names it by its mime. */
  fileName?: string
}

export interface EnexNoteSpec {
  title: string
  /** As ENEX writes dates: 20240131T235959Z. */
  created?: string
  updated?: string
  tags?: string[]
  /** The inside of <en-note>; `{{media:N}}` stands for an <en-media> of resource N. */
  body: string
  resources?: EnexResourceSpec[]
}

export interface ExpectedFile {
  name: string
  md5: string
  size: number
}

export interface ExpectedNote {
  title: string
  tags: string[]
  createdOn: string | undefined
  updatedOn: string | undefined
  files: ExpectedFile[]
}

export function md5(bytes: Buffer): string {
  return createHash('md5').update(bytes).digest('hex')
}

export function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/** A Date as ENEX writes it. */
export function enexDateOf(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '')
}

/** ENEX's date as the reader gives it back (ISO 8601), or undefined for a date that is not one. */
export function isoOf(enex: string | undefined): string | undefined {
  const m = enex && /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(enex)
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.000Z` : undefined
}

const EXTENSIONS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'application/pdf': 'pdf' }

function expectedName(resource: EnexResourceSpec): string {
  if (resource.fileName) return resource.fileName
  const base = resource.mime.startsWith('image/') ? 'image' : 'file'
  const extension = EXTENSIONS[resource.mime]
  return extension ? `${base}.${extension}` : base
}

/** A base64 text broken into lines, as Evernote writes <data>. */
function base64Lines(bytes: Buffer): string {
  return (bytes.toString('base64').match(/.{1,76}/g) ?? []).join('\n')
}

function enml(spec: EnexNoteSpec): string {
  const resources = spec.resources ?? []
  const body = spec.body.replace(/\{\{media:(\d+)\}\}/g, (_, n: string) => {
    const resource = resources[Number(n)] as EnexResourceSpec
    return `<en-media hash="${md5(resource.bytes)}" type="${resource.mime}"/>`
  })
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' +
    '<!DOCTYPE en-note SYSTEM "http://xml.evernote.com/pub/enml2.dtd">\n' +
    `<en-note>${body}</en-note>`
  )
}

function cdata(text: string): string {
  return `<![CDATA[${text.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`
}

function resourceXml(resource: EnexResourceSpec): string {
  const name = resource.fileName
    ? `      <resource-attributes>\n        <file-name>${xmlEscape(resource.fileName)}</file-name>\n` +
      `      </resource-attributes>\n`
    : '      <resource-attributes>\n        <source-url>https://example.com/x</source-url>\n      </resource-attributes>\n'
  return (
    '    <resource>\n' +
    `      <data encoding="base64">\n${base64Lines(resource.bytes)}\n      </data>\n` +
    `      <mime>${resource.mime}</mime>\n` +
    '      <width>16</width>\n      <height>16</height>\n' +
    '      <recognition><![CDATA[<?xml version="1.0"?><recoIndex docType="unknown"/>]]></recognition>\n' +
    name +
    '    </resource>\n'
  )
}

/** One <note> element. */
export function noteXml(spec: EnexNoteSpec): string {
  const dates =
    (spec.created !== undefined ? `    <created>${xmlEscape(spec.created)}</created>\n` : '') +
    (spec.updated !== undefined ? `    <updated>${xmlEscape(spec.updated)}</updated>\n` : '')
  const tags = (spec.tags ?? []).map((tag) => `    <tag>${xmlEscape(tag)}</tag>\n`).join('')
  return (
    '  <note>\n' +
    `    <title>${xmlEscape(spec.title)}</title>\n` +
    dates +
    tags +
    '    <note-attributes>\n      <author>someone@example.com</author>\n      <source>desktop.mac</source>\n' +
    '      <reminder-order>0</reminder-order>\n    </note-attributes>\n' +
    `    <content>\n      ${cdata(enml(spec))}\n    </content>\n` +
    (spec.resources ?? []).map(resourceXml).join('') +
    '  </note>\n'
  )
}

export function expectedOf(spec: EnexNoteSpec): ExpectedNote {
  const seen = new Set<string>()
  const files: ExpectedFile[] = []
  for (const resource of spec.resources ?? []) {
    const hash = md5(resource.bytes)
    if (seen.has(hash)) continue
    seen.add(hash)
    files.push({ name: expectedName(resource), md5: hash, size: resource.bytes.length })
  }
  return {
    title: spec.title.trim(),
    tags: spec.tags ?? [],
    createdOn: isoOf(spec.created),
    updatedOn: isoOf(spec.updated),
    files,
  }
}

/** A whole export of `notes`, and what each becomes. */
export function enexFile(notes: EnexNoteSpec[]): { bytes: Buffer; expected: ExpectedNote[] } {
  const text = ENEX_PROLOG + notes.map(noteXml).join('') + ENEX_END
  return { bytes: Buffer.from(text, 'utf8'), expected: notes.map(expectedOf) }
}

/**
 * An export at `path` of one note holding one resource of `size` random bytes, written piece by piece so the test
 * never holds it whole either; returns the resource's MD5.
 */
export async function writeLargeResourceEnex(path: string, size: number): Promise<string> {
  const out = createWriteStream(path)
  const hash = createHash('md5')
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain')
  }
  await write(ENEX_PROLOG + '  <note>\n    <title>Large</title>\n    <created>20240102T030405Z</created>\n')
  await write('    <content><![CDATA[<en-note><div>big file</div></en-note>]]></content>\n')
  await write('    <resource>\n      <data encoding="base64">\n')
  const piece = 57 * 1024 // a multiple of 3 bytes: each piece's base64 joins the next without padding
  for (let written = 0; written < size; written += piece) {
    const bytes = randomBytes(Math.min(piece, size - written))
    hash.update(bytes)
    await write(base64Lines(bytes) + '\n')
  }
  await write('      </data>\n      <mime>application/octet-stream</mime>\n    </resource>\n  </note>\n' + ENEX_END)
  out.end()
  await once(out, 'close')
  return hash.digest('hex')
}
