// The import bench's input files, written to disk once per run: a Google Keep Takeout (.zip) of many notes and
// pictures, in the shape test/support/import-fixtures/keep.ts describes, and a large Evernote export (.enex) written
// piece by piece, so the bench never holds either whole.
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { stat } from 'node:fs/promises'
import { pipeline } from 'node:stream/promises'
import sharp from 'sharp'
import yazl from 'yazl'
import { ENEX_END, ENEX_PROLOG, type EnexResourceSpec, noteXml } from '../../test/support/import-fixtures/enex.js'
import { random } from '../seed.js'

const WORDS = (
  'apple market river garden window coffee letter station morning picture music yellow quiet number ' +
  'travel kitchen winter summer bridge forest school doctor meeting budget recipe holiday ticket'
).split(' ')

function words(rnd: () => number, count: number): string {
  const out: string[] = []
  for (let i = 0; i < count; i++) out.push(WORDS[Math.floor(rnd() * WORDS.length)] as string)
  return out.join(' ')
}

/** A text of about `chars` characters, in sentences. */
function text(rnd: () => number, chars: number): string {
  let out = ''
  while (out.length < chars) out += `${words(rnd, 6 + Math.floor(rnd() * 8))}. `
  return out.trim()
}

/**
 * A picture as a phone or a screenshot gives one, of a few tens of KB: coarse noise enlarged and blurred (smooth areas,
 * as in a photo), as JPEG or, every fourth, PNG. Each one differs, so no two files are alike.
 */
export async function picture(seed: number): Promise<{ bytes: Buffer; extension: 'jpg' | 'png' }> {
  const rnd = random(seed)
  const raw = Buffer.alloc(16 * 12 * 3)
  for (let i = 0; i < raw.length; i++) raw[i] = Math.floor(rnd() * 256)
  const image = sharp(raw, { raw: { width: 16, height: 12, channels: 3 } })
    .resize(640, 480, { kernel: 'cubic' })
    .blur(2)
  if (seed % 4 === 0)
    return {
      bytes: await image.resize(320, 240).png({ compressionLevel: 6, palette: true }).toBuffer(),
      extension: 'png',
    }
  return { bytes: await image.jpeg({ quality: 80 }).toBuffer(), extension: 'jpg' }
}

const usec = (ms: number) => ms * 1000
const EPOCH = Date.parse('2022-01-01T00:00:00.000Z')

export interface FixtureStats {
  path: string
  bytes: number
  notes: number
  files: number
  fileBytes: number
}

/**
 * A Takeout of `notes` notes, `pictures` of them with a picture each: texts of a few hundred characters, every fifth
 * a checklist, every third with labels, some pinned, archived or trashed; an .html twin beside each JSON as Takeout
 * writes it.
 */
export async function writeKeepTakeout(path: string, notes: number, pictures: number): Promise<FixtureStats> {
  const zip = new yazl.ZipFile()
  const written = pipeline(zip.outputStream, createWriteStream(path))
  const rnd = random(7)
  const folder = 'Takeout/Keep'
  const every = Math.max(1, Math.floor(notes / Math.max(1, pictures)))
  let files = 0
  let fileBytes = 0
  zip.addBuffer(Buffer.from('<html></html>'), 'Takeout/archive_browser.html')
  for (let i = 0; i < notes; i++) {
    const title = i % 17 === 0 ? '' : `${words(rnd, 3)} ${i}`
    const name = title || `2023-01-01T00_00_${String(i).padStart(6, '0')}.000Z`
    const edited = EPOCH + i * 60_000
    const json: Record<string, unknown> = {
      color: i % 7 === 0 ? 'YELLOW' : 'DEFAULT',
      isTrashed: i % 97 === 0,
      isPinned: i % 50 === 0,
      isArchived: i % 11 === 0,
      title,
      userEditedTimestampUsec: usec(edited),
      createdTimestampUsec: usec(edited - 3_600_000),
    }
    if (i % 5 === 0) {
      json.textContent = text(rnd, 60)
      json.listContent = Array.from({ length: 3 + (i % 6) }, (_, n) => ({
        text: words(rnd, 2 + (n % 3)),
        textHtml: words(rnd, 2),
        isChecked: n % 3 === 0,
      }))
    } else {
      json.textContent = text(rnd, 200 + Math.floor(rnd() * 400))
      json.textContentHtml = `<p dir="ltr">${String(json.textContent)}</p>`
    }
    if (i % 3 === 0) json.labels = [{ name: words(rnd, 1) }, ...(i % 9 === 0 ? [{ name: 'Shopping list' }] : [])]
    if (files < pictures && i % every === 0) {
      const { bytes, extension } = await picture(i + 1)
      const fileName = `${i.toString(16)}${files.toString(36)}.${extension}`
      zip.addBuffer(bytes, `${folder}/${fileName}`, { compress: false })
      json.attachments = [{ filePath: fileName, mimetype: extension === 'png' ? 'image/png' : 'image/jpeg' }]
      files += 1
      fileBytes += bytes.length
    }
    zip.addBuffer(Buffer.from(JSON.stringify(json)), `${folder}/${name}.json`)
    zip.addBuffer(Buffer.from(`<html><body>${title}</body></html>`), `${folder}/${name}.html`)
  }
  zip.addBuffer(Buffer.from(JSON.stringify({ labels: [{ name: 'Shopping list' }] })), `${folder}/Labels.json`)
  zip.end()
  await written
  return { path, bytes: (await stat(path)).size, notes, files, fileBytes }
}

/**
 * An Evernote export of about `targetBytes`: notes of a few KB of ENML, every fifth with a picture, and every
 * `largeEvery`-th with a resource of `largeBytes` random bytes (a PDF or a recording: it does not compress).
 */
export async function writeLargeEnex(
  path: string,
  targetBytes: number,
  largeBytes: number,
  largeEvery = 100,
): Promise<FixtureStats> {
  const out = createWriteStream(path)
  const rnd = random(11)
  let size = 0
  const write = async (chunk: string) => {
    size += Buffer.byteLength(chunk)
    if (!out.write(chunk)) await once(out, 'drain')
  }
  const pictures = await Promise.all(Array.from({ length: 16 }, (_, n) => picture(1000 + n)))
  let notes = 0
  let files = 0
  let fileBytes = 0
  await write(ENEX_PROLOG)
  while (size < targetBytes) {
    const i = notes++
    const resources: EnexResourceSpec[] = []
    if (i % 5 === 1) {
      const p = pictures[i % pictures.length]!
      // One byte changed per note: a distinct file each time, as in a real export.
      const bytes = Buffer.from(p.bytes)
      bytes.writeUInt32BE(i, bytes.length - 8)
      resources.push({
        bytes,
        mime: p.extension === 'png' ? 'image/png' : 'image/jpeg',
        fileName: `photo ${i}.${p.extension}`,
      })
    }
    if (i % largeEvery === 0) {
      const bytes = Buffer.alloc(largeBytes)
      for (let o = 0; o + 4 <= largeBytes; o += 4) bytes.writeUInt32LE(Math.floor(rnd() * 2 ** 32), o)
      resources.push({ bytes, mime: 'application/pdf', fileName: `document ${i}.pdf` })
    }
    const paragraphs = Array.from({ length: 3 + (i % 5) }, () => `<div>${text(rnd, 250)}</div>`).join('')
    const media = resources.map((_, n) => `<div>{{media:${n}}}</div>`).join('')
    const day = String(1 + (i % 28)).padStart(2, '0')
    await write(
      noteXml({
        title: `${words(rnd, 3)} ${i}`,
        created: `202301${day}T101500Z`,
        updated: `202302${day}T101500Z`,
        tags: i % 4 === 0 ? [words(rnd, 1)] : [],
        body: `${paragraphs}<ul><li>${words(rnd, 4)}</li><li>${words(rnd, 4)}</li></ul>${media}`,
        resources,
      }),
    )
    files += resources.length
    fileBytes += resources.reduce((sum, r) => sum + r.bytes.length, 0)
  }
  await write(ENEX_END)
  out.end()
  await once(out, 'close')
  return { path, bytes: (await stat(path)).size, notes, files, fileBytes }
}
