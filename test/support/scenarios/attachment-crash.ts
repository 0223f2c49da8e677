// "Every acknowledged upload survives, and nothing partial is ever kept": uploaders send files to a child server
// that is SIGKILLed at a random moment, while one more upload is always in the middle of its body. After each restart
// every upload that got its 200 is listed and served byte for byte; an upload cut off by the kill is either absent or
// whole; the one cut mid-body is absent. The storage is then checked through its driver (attachment-storage.ts).
import { createHash } from 'node:crypto'
import { request } from 'node:http'
import type { AttachmentAnswer, ListedAttachmentAnswer } from '../../../src/attachment-shape.js'
import { type ChildServer, startChild } from '../child-server.js'
import { multipartBody } from '../multipart.js'

export interface AttachmentCrashOptions {
  /** The environment that selects the store and the attachment storage; DATA_DIR is `dataDir`. */
  env: Record<string, string>
  dataDir: string
  kills: number
  uploaders: number
  /** The kill falls at a random moment between these two times after the uploads start. */
  minRunMs: number
  maxRunMs: number
  /** Bytes the endless upload has sent before the kill may fall (512 KiB unless given). */
  midBodyBytes?: number
  /** What else must hold before the kill falls: that the storage has begun to keep the endless upload, say. */
  readyToKill?: () => boolean
}

export interface AttachmentCrashResult {
  kills: number
  acknowledged: number
  /** Uploads whose answer the kill cut off (the one cut mid-body not counted). */
  interrupted: number
  /** Of those, the ones found whole after the restart. */
  interruptedKept: number
  /** The sha256 of every upload sent in full, answered or not: whatever storage holds must be one of these. */
  wholeFiles: Set<string>
  problems: string[]
}

/** The bytes of the upload named `name`, derived from it: a torn or mixed file cannot match them. */
export function bytesOf(name: string): Buffer {
  const size = Number(/-(\d+)\.bin$/.exec(name)?.[1] ?? 0)
  const unit = createHash('sha256').update(name).digest()
  return Buffer.alloc(size, unit)
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex')
const sizeOf = () => 50_000 + Math.floor(Math.random() * 3_000_000)

interface Account {
  token: string
  /** Name → the answer it got: every upload acknowledged so far. */
  acknowledged: Map<string, AttachmentAnswer>
  /** Names sent in full whose answer never came: each may or may not have been kept. */
  cut: Set<string>
  /** Names of the uploads the kill fell in the middle of: never to be kept. */
  midBody: Set<string>
  seq: number
}

async function upload(base: string, token: string, name: string): Promise<AttachmentAnswer> {
  const { body, contentType } = multipartBody({ filename: name, bytes: bytesOf(name) })
  const res = await fetch(`${base}/upload-attachment`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body,
    signal: AbortSignal.timeout(30_000),
  })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`upload-attachment answered ${res.status}: ${text.slice(0, 200)}`)
  return (JSON.parse(text) as { attachment: AttachmentAnswer }).attachment
}

async function uploadUntilStopped(base: string, account: Account, who: string, stopped: () => boolean) {
  while (!stopped()) {
    const name = `${who}-u${++account.seq}-${sizeOf()}.bin`
    try {
      account.acknowledged.set(name, await upload(base, account.token, name))
    } catch (err) {
      if (!stopped()) throw err // a failure before the kill is a defect, not an interruption
      account.cut.add(name)
      return
    }
  }
}

/**
 * An upload whose body never ends: its head and 64 KiB pieces go out until the connection drops, so the kill
 * always lands with the file part half received and half written to storage.
 */
function uploadMidBody(
  base: string,
  token: string,
  name: string,
): { sentBytes: () => number; answered: () => boolean; ended: Promise<void> } {
  const { body, contentType } = multipartBody({ filename: name, bytes: Buffer.alloc(0) })
  const head = body.subarray(0, body.indexOf('\r\n\r\n') + 4)
  let sent = 0
  let answered = false
  const ended = new Promise<void>((resolve) => {
    const req = request(`${base}/upload-attachment`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType, 'transfer-encoding': 'chunked' },
    })
    req.on('error', () => resolve())
    req.on('response', (res) => {
      answered = true
      res.resume()
      resolve()
    })
    req.write(head)
    const piece = Buffer.alloc(64 * 1024, 0x5a)
    // A piece every 10 ms, and none while the server has not taken the last ones: `sent` is what it was given.
    const timer = setInterval(() => {
      if (req.destroyed) return clearInterval(timer)
      if (req.writableNeedDrain) return
      req.write(piece)
      sent += piece.length
    }, 10)
    req.on('close', () => clearInterval(timer))
  })
  return { sentBytes: () => sent, answered: () => answered, ended }
}

async function listed(base: string, token: string): Promise<ListedAttachmentAnswer[]> {
  const res = await fetch(`${base}/get-attachments`, { headers: { authorization: `Bearer ${token}` } })
  if (res.status !== 200) throw new Error(`get-attachments answered ${res.status}`)
  return ((await res.json()) as { attachments: ListedAttachmentAnswer[] }).attachments
}

async function downloaded(base: string, token: string, id: string): Promise<Buffer | string> {
  const res = await fetch(`${base}/attachments/${id}`, { headers: { authorization: `Bearer ${token}` } })
  const bytes = Buffer.from(await res.arrayBuffer())
  return res.status === 200 ? bytes : `status ${res.status}`
}

/** Compares what an account's listing and downloads show after a restart with what it was told; then adopts it. */
async function verify(base: string, account: Account, who: string, problems: string[]): Promise<number> {
  const found = new Map((await listed(base, account.token)).map((a) => [a.name, a]))
  let cutKept = 0
  for (const [name, answer] of account.acknowledged) {
    const now = found.get(name)
    if (!now) problems.push(`${who}: the acknowledged upload ${name} (${answer._id}) is gone`)
    else if (now._id !== answer._id || now.sha256 !== answer.sha256 || now.size !== answer.size) {
      problems.push(`${who}: ${name} is listed as ${JSON.stringify(now)}, acknowledged as ${JSON.stringify(answer)}`)
    }
  }
  for (const [name, now] of found) {
    if (account.midBody.has(name)) problems.push(`${who}: ${name}, cut mid-body, was kept as ${now._id}`)
    else if (account.cut.has(name)) cutKept += 1
    else if (!account.acknowledged.has(name)) problems.push(`${who}: ${name} was never uploaded`)
    const expected = sha256(bytesOf(name))
    if (now.sha256 !== expected) problems.push(`${who}: ${name} is listed with another file's sha256`)
    const bytes = await downloaded(base, account.token, now._id)
    if (typeof bytes === 'string') problems.push(`${who}: ${name} (${now._id}) is listed but answers ${bytes}`)
    else if (sha256(bytes) !== expected) problems.push(`${who}: ${name} is served with other bytes`)
    account.acknowledged.set(name, now)
  }
  account.cut.clear()
  return cutKept
}

async function createAccount(base: string, i: number): Promise<Account> {
  const res = await fetch(`${base}/create-account`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      fullName: `Uploader ${i}`,
      email: `upload.crash.${process.pid}.${Date.now()}.${i}@example.com`,
      password: 'crash test password',
    }),
  })
  const { accessToken } = (await res.json()) as { accessToken: string }
  return { token: accessToken, acknowledged: new Map(), cut: new Set(), midBody: new Set(), seq: 0 }
}

/** Runs the kills; leaves the server stopped and the data where it is, for the storage's check. */
export async function runAttachmentCrash(options: AttachmentCrashOptions): Promise<AttachmentCrashResult> {
  // No size limit the endless upload could reach before the kill.
  const env = { MAX_ATTACHMENT_MB: '4096', MAX_ATTACHMENT_MB_PER_ACCOUNT: '0', ...options.env, LOG_LEVEL: 'error' }
  const result: AttachmentCrashResult = {
    kills: 0,
    acknowledged: 0,
    interrupted: 0,
    interruptedKept: 0,
    wholeFiles: new Set(),
    problems: [],
  }
  /** The names of the uploads sent in full, so far: each is hashed once, at the end. */
  const sentInFull = new Set<string>()
  let server: ChildServer | undefined = await startChild({ dataDir: options.dataDir, env })
  try {
    const accounts: Account[] = []
    for (let i = 0; i < options.uploaders; i++) accounts.push(await createAccount(server.base, i))
    for (let k = 0; k < options.kills; k++) {
      let stopped = false
      const base = server.base
      const [first] = accounts
      const midName = `mid-k${k}-0.bin`
      first!.midBody.add(midName)
      const mid = uploadMidBody(base, first!.token, midName)
      const loops = accounts.map((a, i) => uploadUntilStopped(base, a, `k${k}w${i}`, () => stopped))
      const delay = options.minRunMs + Math.random() * (options.maxRunMs - options.minRunMs)
      await new Promise((r) => setTimeout(r, delay))
      // The kill falls once the endless upload is well under way, whatever the machine's speed.
      const ready = options.readyToKill ?? (() => true)
      const waitUntil = Date.now() + 120_000
      while (mid.sentBytes() < (options.midBodyBytes ?? 512 * 1024) || !ready()) {
        if (mid.answered() || Date.now() > waitUntil) {
          result.problems.push(`kill ${k + 1}: the endless upload was ${mid.answered() ? 'answered' : 'not taken in'}`)
          break
        }
        await new Promise((r) => setTimeout(r, 20))
      }
      stopped = true
      await server.kill()
      await Promise.all([...loops, mid.ended])
      server = undefined
      result.kills += 1
      for (const a of accounts) {
        result.interrupted += a.cut.size
        for (const name of [...a.cut, ...a.acknowledged.keys()]) sentInFull.add(name)
      }
      server = await startChild({ dataDir: options.dataDir, env })
      for (const [i, a] of accounts.entries()) {
        result.interruptedKept += await verify(server.base, a, `kill ${k + 1} w${i}`, result.problems)
      }
    }
    result.acknowledged = accounts.reduce((n, a) => n + a.acknowledged.size, 0) - result.interruptedKept
    for (const name of sentInFull) result.wholeFiles.add(sha256(bytesOf(name)))
    return result
  } finally {
    await server?.stop()
  }
}
