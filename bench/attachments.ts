// Attachments through the built service over loopback (docs/attachments.md): the upload and download rate of a
// large file, beside those of a bare node:http server in the same run (the ceiling), the service's RSS while four
// files go up and four come down at once (streaming proves itself there), and the time of a picture's thumbnail,
// first and from the cache, beside the time of the same sharp call alone (the floor). One store per run: DATABASE_URL selects
// PostgreSQL, whose default blob driver keeps the bytes in the database; ATTACHMENTS_STORAGE is passed through.
// Run: npm run build:bench && node dist-bench/bench/attachments.js [--out PATH]
//      (env FILE_MB=100, ROUNDS=3, PARALLEL_MB=1024, THUMBNAILS=7; 0 skips a part)
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import sharp from 'sharp'
import { DEFAULT_THUMBNAIL_OPTIONS, resizedWebp } from '../src/services/thumbnails.js'
import { type ForkedServer, type ServiceProcess, forkListening, registerAccount, startService } from './processes.js'
import { argsWithoutOut, writeResults } from './report.js'

const MB = 2 ** 20
const FILE_MB = Number(process.env.FILE_MB ?? 100)
const ROUNDS = Number(process.env.ROUNDS ?? 3)
const PARALLEL_MB = Number(process.env.PARALLEL_MB ?? 1024)
const THUMBNAILS = Number(process.env.THUMBNAILS ?? 7)
const CHUNK = randomBytes(MB)
const FILE_CEILING = fileURLToPath(new URL('./file-ceiling-server.js', import.meta.url))

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

/** Upload then download rates, in MiB/s, of `url`: the service, or the ceiling (file-ceiling-server.ts). */
async function roundTrip(url: string, authorization: string) {
  const sent = await upload(url, authorization, FILE_MB)
  const got = await download(url, authorization, sent.url)
  return { up: FILE_MB / sent.seconds, down: got.bytes / MB / got.seconds }
}

/** The service's rates and the ceiling's, the two taking turns in each round so that both see the same machine. */
async function rates(service: ServiceProcess, ceiling: ForkedServer, authorization: string) {
  const rounds = {
    service: [] as Array<{ up: number; down: number }>,
    ceiling: [] as Array<{ up: number; down: number }>,
  }
  for (let round = 0; round < ROUNDS; round++) {
    rounds.ceiling.push(await roundTrip(ceiling.url, authorization))
    rounds.service.push(await roundTrip(service.url, authorization))
  }
  const of = (list: Array<{ up: number; down: number }>) => ({
    uploadMBps: median(list.map((r) => r.up)),
    downloadMBps: median(list.map((r) => r.down)),
  })
  return { ...of(rounds.service), ceiling: of(rounds.ceiling), rounds }
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

/**
 * 12-megapixel JPEGs (4000 × 3000): a photo's worth of detail (noise drawn at a quarter of the size and enlarged,
 * some 3 MB, as a phone's photo) and the worst case, noise at every pixel (some 15 MB, every bit of it to decode).
 */
async function photos(): Promise<Array<{ name: string; jpeg: Buffer }>> {
  const noise = (width: number, height: number) =>
    sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
  return [
    { name: 'photo-like', jpeg: await noise(1000, 750).resize(4000, 3000).jpeg({ quality: 85 }).toBuffer() },
    { name: 'noise', jpeg: await noise(4000, 3000).jpeg({ quality: 85 }).toBuffer() },
  ]
}

/**
 * Each picture's thumbnail through the service, first and then from its cache, and the floor: the same sharp call
 * (resizedWebp) in this process, timed just before, with nothing around it.
 */
async function thumbnails(service: ServiceProcess, authorization: string) {
  const results = []
  for (const { name, jpeg } of await photos()) {
    const first: number[] = []
    const cached: number[] = []
    const floor: number[] = []
    for (let i = 0; i < THUMBNAILS; i++) {
      const file = await upload(service.url, authorization, 0, jpeg)
      const started = process.hrtime.bigint()
      await resizedWebp(jpeg, 1024, DEFAULT_THUMBNAIL_OPTIONS.maxPixels)
      floor.push(Number(process.hrtime.bigint() - started) / 1e6)
      const path = `/attachments/${file.id}/thumbnail?width=1024`
      first.push((await download(service.url, authorization, path)).seconds * 1000)
      for (let j = 0; j < 15; j++) cached.push((await download(service.url, authorization, path)).seconds * 1000)
    }
    const mb = jpeg.length / MB
    results.push({ name, mb, firstMs: median(first), cachedMs: median(cached), floorMs: median(floor), first, floor })
  }
  return results
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
    let rate: Awaited<ReturnType<typeof rates>> | undefined
    if (FILE_MB > 0) {
      const ceiling = await forkListening(FILE_CEILING, [], 'the file ceiling')
      try {
        rate = await rates(service, ceiling, authorization)
      } finally {
        await ceiling.stop()
      }
    }
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
    const ofCeiling = (value: number, ceiling: number) => `${fixed((value / ceiling) * 100, 0)} %`
    if (rate) {
      const { ceiling } = rate
      lines.push(
        `| upload of ${FILE_MB} MiB, median of ${ROUNDS} | ${fixed(rate.uploadMBps)} MiB/s (${ofCeiling(rate.uploadMBps, ceiling.uploadMBps)} of the ceiling's ${fixed(ceiling.uploadMBps)}) | ≥ 150 disk, ≥ 50 PostgreSQL |`,
        `| download of ${FILE_MB} MiB, median of ${ROUNDS} | ${fixed(rate.downloadMBps)} MiB/s (${ofCeiling(rate.downloadMBps, ceiling.downloadMBps)} of the ceiling's ${fixed(ceiling.downloadMBps)}) | ≥ 300 |`,
      )
    }
    if (together)
      lines.push(
        `| RSS while 4 × ${PARALLEL_MB} MiB go up and 4 come down (${fixed(together.seconds)} s) | ${fixed(together.maxRssMB)} MiB | < 250 |`,
      )
    for (const t of thumbs ?? []) {
      lines.push(
        `| thumbnail (1024) of a 12 MP ${t.name} JPEG (${fixed(t.mb)} MiB), first, median of ${THUMBNAILS} | ${fixed(t.firstMs)} ms (sharp alone: ${fixed(t.floorMs)} ms) | ≤ 300 |`,
        `| the same from the cache, median of ${THUMBNAILS * 15} | ${fixed(t.cachedMs, 2)} ms | ≤ 5 |`,
      )
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
