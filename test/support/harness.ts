// Test harness: builds the app on a fresh store and gives a client that speaks to it either
// through Fastify's inject or over a real listening socket, so one suite covers both.
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { buildApp } from '../../src/app.js'
import { diskBlobs } from '../../src/blobs/disk.js'
import type { BlobStorage } from '../../src/blobs/types.js'
import { tempDir } from './temp.js'
import { type Config, defaultConfig } from '../../src/config.js'
import type { LimiterFactory } from '../../src/services/brute-force.js'
import type { NoteRecord } from '../../src/note-shape.js'
import { storeLimitsOf } from '../../src/store/limits.js'
import type { Store } from '../../src/store/types.js'
import { responseChecker } from './openapi-check.js'
import { type StoreKind, type TestStore, openTestStore, storeKinds } from './stores.js'

export const TEST_SECRET = 'test-secret-that-is-at-least-32-bytes-long!'

/** A log stream (pino's `stream` option) that appends each line written to it to `lines`. */
export function logLinesInto(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean))
      done()
    },
  })
}

export type Mode = 'inject' | 'http'
export const MODES: readonly Mode[] = ['inject', 'http']

/**
 * Every (mode, store) pair the HTTP suites run on: both modes on SQLite, and on PostgreSQL when
 * it can be reached (otherwise one line in the file's output says why it was left out).
 */
export function targets(): Array<{ mode: Mode; storeKind: StoreKind }> {
  const kinds = storeKinds()
  return MODES.flatMap((mode) => kinds.map((storeKind) => ({ mode, storeKind })))
}

export interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  /** The body's bytes, as they arrived. */
  bytes: Buffer
  /** The parsed JSON body; undefined when the body is not JSON. */
  json: unknown
}

export interface RequestOptions {
  body?: unknown
  /** Sent as is, instead of JSON-encoding `body`. */
  raw?: string | Buffer
  token?: string
  headers?: Record<string, string>
}

export interface Client {
  mode: Mode
  request(method: string, path: string, options?: RequestOptions): Promise<Reply>
}

export interface Harness {
  app: FastifyInstance
  store: Store
  blobs: BlobStorage
  /** The disk driver's folder, when the harness made it (not given `blobs`). */
  blobDir: string | undefined
  client: Client
  close(): Promise<void>
}

/**
 * argon2id at a small fraction of the deployment's cost (config.ts): every registration of the
 * suites pays it, and only the tests about hashing need the real one, which they ask for with
 * `passwordHashing: defaultConfig.passwordHashing`.
 */
export const TEST_PASSWORD_HASHING: Config['passwordHashing'] = { memoryCost: 1024, timeCost: 1, parallelism: 1 }

/**
 * A search's budget in tests that are not about it. Under tsx the first search of a process
 * starts a thread that loads the TypeScript loader again, which on a loaded machine took longer
 * than the 2 s default counts as waiting for a thread (503); the budget tests set their own.
 */
export const TEST_SEARCH_TIMEOUT_MS = 30_000

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...defaultConfig,
    dataDir: ':memory:',
    passwordHashing: TEST_PASSWORD_HASHING,
    searchTimeoutMs: TEST_SEARCH_TIMEOUT_MS,
    ...overrides,
  }
}

export interface HarnessOptions {
  config?: Partial<Config>
  /**
   * The store the app uses, held to the limits it was opened with (src/store/limits.ts), which should be the
   * config's; a fresh store of `storeKind` held to the config's unless given.
   */
  store?: Store
  /** The kind of fresh store to open when `store` is not given; SQLite by default. */
  storeKind?: StoreKind
  limiterFactory?: LimiterFactory
  /**
   * Check every response against the app's OpenAPI document (see openapi-check.ts). On unless
   * set to false, for a test that has to provoke an answer the document does not promise.
   */
  checkResponses?: boolean
  /** Fastify logger options (e.g. a stream that collects lines); nothing is logged by default. */
  logger?: FastifyServerOptions['logger']
  /** The web app's build to serve; TEST_WEB_ROOT (a stand-in) by default. */
  webRoot?: string
  /** Where attachments' bytes go; the disk driver in a temporary directory, removed on close, by default. */
  blobs?: BlobStorage
}

/** A stand-in for dist/web: the pages exist, so paths answer as they do in production. */
export const TEST_WEB_ROOT = fileURLToPath(new URL('../fixtures/web', import.meta.url))

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function headersFor(options: RequestOptions): { headers: Record<string, string>; payload?: string | Buffer } {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  let payload: string | Buffer | undefined
  if (options.raw !== undefined) payload = options.raw
  else if (options.body !== undefined) {
    payload = JSON.stringify(options.body)
    headers['content-type'] ??= 'application/json'
  }
  return { headers, payload }
}

/** A client of a service listening at `base` (http://host:port), over real sockets (fetch). */
export function urlClient(base: string): Client {
  return {
    mode: 'http',
    async request(method, path, opts = {}) {
      const { headers, payload } = headersFor(opts)
      const res = await fetch(base + path, { method, headers, ...(payload !== undefined ? { body: payload } : {}) })
      const bytes = Buffer.from(await res.arrayBuffer())
      const text = bytes.toString('utf8')
      const h: Record<string, string> = {}
      res.headers.forEach((v, k) => (h[k] = v))
      return { status: res.status, headers: h, text, bytes, json: parseJson(text) }
    },
  }
}

export async function startHarness(mode: Mode, options: HarnessOptions = {}): Promise<Harness> {
  const config = testConfig(options.config)
  const store = options.store ?? (await openTestStore(options.storeKind ?? 'sqlite', true, storeLimitsOf(config)))
  const files = options.blobs ? undefined : tempDir('notes-blobs-')
  const blobs = options.blobs ?? diskBlobs(files!.path)
  const app = await buildApp({
    config,
    store,
    blobs,
    // A test store carries the transfer store's pages (stores.ts); one a test passes in may not.
    ...('notesAfter' in store ? { exportReads: store as TestStore } : {}),
    secret: TEST_SECRET,
    // The fast suite runs without `npm run build`: a stand-in build serves the pages (test/system/
    // tests the real one).
    webRoot: options.webRoot ?? TEST_WEB_ROOT,
    ...(options.limiterFactory ? { limiterFactory: options.limiterFactory } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  })
  let base = ''
  if (mode === 'http') base = await app.listen({ port: 0, host: '127.0.0.1' })
  else await app.ready()

  const overSocket = urlClient(base)
  const client: Client = {
    mode,
    async request(method, path, opts = {}) {
      if (mode === 'http') return overSocket.request(method, path, opts)
      const { headers, payload } = headersFor(opts)
      const res = await app.inject({
        method: method as 'GET',
        url: path,
        headers,
        ...(payload !== undefined ? { payload } : {}),
      })
      return {
        status: res.statusCode,
        headers: res.headers as Reply['headers'],
        text: res.body,
        bytes: res.rawPayload,
        json: parseJson(res.body),
      }
    },
  }
  if (options.checkResponses !== false) {
    const check = responseChecker(app.swagger())
    const send = client.request.bind(client)
    client.request = async (method, path, opts) => {
      const reply = await send(method, path, opts)
      check(method, path, reply)
      return reply
    }
  }
  return {
    app,
    store,
    blobs,
    blobDir: files?.path,
    client,
    async close() {
      await app.close()
      await store.close()
      if (files) {
        await blobs.close()
        files.remove()
      }
    },
  }
}

let counter = 0
/** A unique email for each call, so tests never collide. */
export function uniqueEmail(prefix = 'user'): string {
  counter++
  return `${prefix}.${process.pid}.${Date.now()}.${counter}@example.com`
}

export interface Account {
  email: string
  password: string
  token: string
  userId: string
}

export async function register(client: Client, fullName = 'Test User'): Promise<Account> {
  const email = uniqueEmail()
  const password = 'correct horse battery staple'
  const res = await client.request('POST', '/create-account', { body: { fullName, email, password } })
  const body = res.json as { accessToken: string; user: { _id: string } }
  if (res.status !== 200 || !body.accessToken) throw new Error(`registration failed: ${res.status} ${res.text}`)
  return { email, password, token: body.accessToken, userId: body.user._id }
}

export type NoteBody = NoteRecord

export async function addNote(client: Client, token: string, body: Record<string, unknown>): Promise<NoteBody> {
  const res = await client.request('POST', '/add-note', { token, body })
  if (res.status !== 200) throw new Error(`add-note failed: ${res.status} ${res.text}`)
  return (res.json as { note: NoteBody }).note
}
