// Attachments through the built service over loopback (docs/attachments.md): the upload and download rate of a
// large file, the service's RSS while four files go up and four come down at once (streaming proves itself there),
// and the time of a picture's thumbnail, first and from the cache. One store per run: DATABASE_URL selects
// PostgreSQL, whose default blob driver keeps the bytes in the database; ATTACHMENTS_STORAGE is passed through.
// Run: npm run build:bench && node dist-bench/bench/attachments.js [--out PATH]
//      (env FILE_MB=100, ROUNDS=3, PARALLEL_MB=1024, THUMBNAILS=7; 0 skips a part)
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { type ServiceProcess, registerAccount, startService } from './processes.js'
import { argsWithoutOut, writeResults } from './report.js'

const MB = 2 ** 20
const FILE_MB = Number(process.env.FILE_MB ?? 100)
const ROUNDS = Number(process.env.ROUNDS ?? 3)
const PARALLEL_MB = Number(process.env.PARALLEL_MB ?? 1024)
const THUMBNAILS = Number(process.env.THUMBNAILS ?? 7)
const CHUNK = randomBytes(MB)

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN

/** Streams a multipart upload of `megabytes` MiB (one random MiB repeated) and resolves to its seconds and answer. */
function upload(url: string, authorization: string, megabytes: number, body?: Buffer) {
  const boundary = `bench${randomBytes(8).toString('hex')}`
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${body ? 'photo.jpg' : 'data.bin'}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  )
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  const size = body ? body.length : megabytes * MB
  return new Promise<{ seconds: number; id: string; url: string }>((resolve, reject) => {
    const started = process.hrtime.bigint()
    const req = request(`${url}/upload-attachment`, {
      method: 'POST',
      headers: {
        authorization,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + size + tail.length,
      },
    })
    req.on('response', (res) => {
      const parts: Buffer[] = []
      res.on('data', (d: Buffer) => parts.push(d))
      res.on('end', () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9
        const answer = JSON.parse(Buffer.concat(parts).toString()) as { attachment?: { _id: string; url: string } }
        if (res.statusCode !== 200 || !answer.attachment) reject(new Error(`upload answered ${res.statusCode}`))
        else resolve({ seconds, id: answer.attachment._id, url: answer.attachment.url })
      })
    })
    req.on('error', reject)
    req.write(head)
    let sent = 0
    const pump = () => {
      if (body) {
        req.write(body)
        req.end(tail)
        return
      }
      while (sent < megabytes) {
        sent++
        if (!req.write(CHUNK)) return void req.once('drain', pump)
      }
      req.end(tail)
    }
    pump()
  })
}

/** Reads `path` to its end; resolves to its seconds and bytes. */
function download(url: string, authorization: string, path: string) {
  return new Promise<{ seconds: number; bytes: number }>((resolve, reject) => {
    const started = process.hrtime.bigint()
    request(`${url}${path}`, { headers: { authorization } }, (res) => {
      let bytes = 0
      res.on('data', (d: Buffer) => (bytes += d.length))
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`${path} answered ${res.statusCode}`))
        else resolve({ seconds: Number(process.hrtime.bigint() - started) / 1e9, bytes })
      })
    })
      .on('error', reject)
      .end()
  })
}

async function rates(service: ServiceProcess, authorization: string) {
  const up: number[] = []
  const down: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const sent = await upload(service.url, authorization, FILE_MB)
    up.push(FILE_MB / sent.seconds)
    const got = await download(service.url, authorization, sent.url)
    down.push(got.bytes / MB / got.seconds)
  }
  return { uploadMBps: median(up), downloadMBps: median(down), uploads: up, downloads: down }
}

/** Four files up and four down at once; the service's largest RSS meanwhile. */
async function parallel(service: ServiceProcess, authorization: string) {
  const stored = await Promise.all(Array.from({ length: 4 }, () => upload(service.url, authorization, PARALLEL_MB)))
  service.rss.mark()
  const started = Date.now()
  await Promise.all([
    ...Array.from({ length: 4 }, () => upload(service.url, authorization, PARALLEL_MB)),
    ...stored.map((file) => download(service.url, authorization, file.url)),
  ])
  return { seconds: (Date.now() - started) / 1000, maxRssMB: service.rss.mark() / MB }
}

/** A 12-megapixel JPEG (4000 × 3000) of noise, as hard to resize as a photo. */
async function photo(): Promise<Buffer> {
  const raw = randomBytes(4000 * 3000 * 3)
  return sharp(raw, { raw: { width: 4000, height: 3000, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer()
}

async function thumbnails(service: ServiceProcess, authorization: string) {
  const jpeg = await photo()
  const first: number[] = []
  const cached: number[] = []
  for (let i = 0; i < THUMBNAILS; i++) {
    const file = await upload(service.url, authorization, 0, jpeg)
    const path = `/attachments/${file.id}/thumbnail?width=1024`
    first.push((await download(service.url, authorization, path)).seconds * 1000)
    for (let j = 0; j < 15; j++) cached.push((await download(service.url, authorization, path)).seconds * 1000)
  }
  return { firstMs: median(first), cachedMs: median(cached), first, photoBytes: jpeg.length }
}

const fixed = (n: number, digits = 1) => n.toFixed(digits)

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'notes-bench-attachments-'))
  const store = process.env.DATABASE_URL ? 'postgresql' : 'sqlite'
  const env: Record<string, string> = { MAX_ATTACHMENT_MB: '4096', MAX_ATTACHMENT_MB_PER_ACCOUNT: '0' }
  if (process.env.ATTACHMENTS_STORAGE) env.ATTACHMENTS_STORAGE = process.env.ATTACHMENTS_STORAGE
  // Large files over loopback take longer than a JSON request may.
  env.REQUEST_TIMEOUT_MS = '3600000'
  const service = await startService({
    dataDir,
    secret: randomBytes(32).toString('hex'),
    env,
    ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : {}),
  })
  try {
    const authorization = await registerAccount(service.url, 'Bench', `files.${process.pid}@bench.example`)
    const rate = FILE_MB > 0 ? await rates(service, authorization) : undefined
    const together = PARALLEL_MB > 0 ? await parallel(service, authorization) : undefined
    const thumbs = THUMBNAILS > 0 ? await thumbnails(service, authorization) : undefined
    const lines = [
      `# Attachments (${store}${env.ATTACHMENTS_STORAGE ? `, ${env.ATTACHMENTS_STORAGE} blobs` : ''})`,
      '',
      `\`node dist-bench/bench/attachments.js ${argsWithoutOut().join(' ')}\` with FILE_MB=${FILE_MB}, ROUNDS=${ROUNDS}, PARALLEL_MB=${PARALLEL_MB}, THUMBNAILS=${THUMBNAILS}.`,
      '',
      '| measure | result | target |',
      '|---|---|---|',
    ]
    if (rate) {
      lines.push(
        `| upload of ${FILE_MB} MiB, median of ${ROUNDS} | ${fixed(rate.uploadMBps)} MiB/s | ≥ 150 disk, ≥ 50 PostgreSQL |`,
      )
      lines.push(`| download of ${FILE_MB} MiB, median of ${ROUNDS} | ${fixed(rate.downloadMBps)} MiB/s | ≥ 300 |`)
    }
    if (together)
      lines.push(
        `| RSS while 4 × ${PARALLEL_MB} MiB go up and 4 come down (${fixed(together.seconds)} s) | ${fixed(together.maxRssMB)} MiB | < 250 |`,
      )
    if (thumbs) {
      lines.push(
        `| thumbnail (1024) of a 12 MP JPEG, first, median of ${THUMBNAILS} | ${fixed(thumbs.firstMs)} ms | ≤ 300 |`,
      )
      lines.push(`| the same from the cache, median | ${fixed(thumbs.cachedMs, 2)} ms | ≤ 5 |`)
    }
    const markdown = `${lines.join('\n')}\n`
    process.stdout.write(markdown)
    const out = process.argv.includes('--out') ? process.argv[process.argv.indexOf('--out') + 1] : undefined
    writeResults(out, markdown, { store, rate, together, thumbs })
  } finally {
    await service.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
