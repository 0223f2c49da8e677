// The import bench's client side: POST /import-notes with a file streamed from disk (multipart), reading the answer's
// JSON lines as they come, and GET /export-notes read to its end into a file whose zip entries are then counted.
import { randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { request } from 'node:http'
import { basename } from 'node:path'
import { pipeline } from 'node:stream/promises'
import yauzl from 'yauzl'

export interface ImportTimes {
  /** From the request's start to the file's last byte sent. */
  uploadSeconds: number
  /** From the request's start to the answer's first byte (the import has read its first item). */
  firstByteSeconds: number
  /** From the request's start to the summary line. */
  seconds: number
  progressLines: number
  summary: {
    format: string
    imported: number
    alreadyPresent: number
    attachments: number
    skippedCount: number
    stopped: string | null
    skipped: Array<{ label: string; reason: string }>
  }
}

const elapsed = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e9

/** Uploads `file` to POST /import-notes and resolves once the summary line has come. */
export async function importFile(
  url: string,
  authorization: string,
  file: string,
  dryRun = false,
): Promise<ImportTimes> {
  const boundary = `bench${randomBytes(8).toString('hex')}`
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${basename(file)}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  )
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  const size = (await stat(file)).size
  const started = process.hrtime.bigint()
  let uploadSeconds = NaN
  let firstByteSeconds = NaN
  return new Promise<ImportTimes>((resolve, reject) => {
    const req = request(`${url}/import-notes${dryRun ? '?dryRun=true' : ''}`, {
      method: 'POST',
      headers: {
        authorization,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + size + tail.length,
      },
    })
    req.on('finish', () => (uploadSeconds = elapsed(started)))
    req.on('error', reject)
    req.on('response', (res) => {
      let buffered = ''
      let progressLines = 0
      let done = false
      res.setEncoding('utf8')
      res.on('data', (text: string) => {
        if (Number.isNaN(firstByteSeconds)) firstByteSeconds = elapsed(started)
        buffered += text
        let end: number
        while ((end = buffered.indexOf('\n')) >= 0) {
          const line = JSON.parse(buffered.slice(0, end)) as { progress?: unknown; summary?: ImportTimes['summary'] }
          buffered = buffered.slice(end + 1)
          if (line.progress) progressLines += 1
          else if (line.summary) {
            done = true
            resolve({
              uploadSeconds,
              firstByteSeconds,
              seconds: elapsed(started),
              progressLines,
              summary: line.summary,
            })
          } else reject(new Error(`the import answered ${JSON.stringify(line)}`))
        }
      })
      res.on('end', () => {
        if (!done)
          reject(new Error(`the import answered ${res.statusCode} without a summary: ${buffered.slice(0, 500)}`))
      })
      res.on('error', reject)
    })
    req.write(head)
    const body = createReadStream(file)
    body.on('error', reject)
    body.on('end', () => req.end(tail))
    body.pipe(req, { end: false })
  })
}

export interface ExportTimes {
  /** From the request's start to the zip's last byte read. */
  seconds: number
  firstByteSeconds: number
  bytes: number
  /** Entries in the zip's central directory (yauzl reads it from the end, so a truncated zip fails here). */
  entries: number
  markdownEntries: number
}

/** GET /export-notes?… into `file`, then its entries counted. */
export async function exportTo(url: string, authorization: string, query: string, file: string): Promise<ExportTimes> {
  const started = process.hrtime.bigint()
  let firstByteSeconds = NaN
  const bytes = await new Promise<number>((resolve, reject) => {
    request(`${url}/export-notes?${query}`, { headers: { authorization } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        return reject(new Error(`export answered ${res.statusCode}`))
      }
      let count = 0
      res.on('data', (chunk: Buffer) => {
        if (Number.isNaN(firstByteSeconds)) firstByteSeconds = elapsed(started)
        count += chunk.length
      })
      pipeline(res, createWriteStream(file)).then(() => resolve(count), reject)
    })
      .on('error', reject)
      .end()
  })
  const seconds = elapsed(started)
  const { entries, markdownEntries } = await countEntries(file)
  return { seconds, firstByteSeconds, bytes, entries, markdownEntries }
}

function countEntries(file: string): Promise<{ entries: number; markdownEntries: number }> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'))
      let entries = 0
      let markdownEntries = 0
      zip.on('entry', (entry: yauzl.Entry) => {
        entries += 1
        if (entry.fileName.endsWith('.md')) markdownEntries += 1
        zip.readEntry()
      })
      zip.on('end', () => resolve({ entries, markdownEntries }))
      zip.on('error', reject)
      zip.readEntry()
    })
  })
}
