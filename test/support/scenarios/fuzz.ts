// "Bad input never breaks it": fast-check generates random and adversarial requests for every
// endpoint (random JSON of every type, deep nesting, huge strings, unicode and NUL, __proto__ and
// constructor keys, repeated query parameters, invalid UTF-8, wrong content types, chunked
// bodies) and each response must be in the contract's shape, never a 5xx.
import { request as httpRequest, Agent } from 'node:http'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { contractProblems } from '../contract-shape.js'

export interface FuzzRequest {
  method: string
  path: string
  headers: Record<string, string>
  body?: Buffer
  /** Over a socket: send the body in several chunks with Transfer-Encoding: chunked. */
  chunks?: number
}

export interface FuzzTarget {
  /** A valid token and one of its notes, so some requests get past authentication. */
  token: string
  noteId: string
}

const ENDPOINTS: Array<[string, string]> = [
  ['POST', '/create-account'],
  ['POST', '/login'],
  ['GET', '/get-user'],
  ['POST', '/add-note'],
  ['PUT', '/edit-note/:id'],
  ['DELETE', '/delete-note/:id'],
  ['PUT', '/update-note-pinned/:id'],
  ['GET', '/get-all-notes'],
  ['GET', '/search-notes'],
]
const FIELDS = ['fullName', 'email', 'password', 'title', 'content', 'tags', 'isPinned', 'query', 'userId', '_id']

export const weirdString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.string({ unit: 'grapheme', maxLength: 64 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\uD800',
    '\uDFFF\uD800',
    '\u202E',
    '\uFEFF',
    '𝕏'.repeat(300),
    '../../etc/passwd',
    '$where',
    '{"$gt":""}',
  ),
  fc.nat({ max: 2_000_000 }).map((n) => 'x'.repeat(n)), // huge, up to twice the body limit
)
export const anyJson = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  weirdString,
  fc.double(),
  fc.constantFrom(true, false, null, 0, -0, 1e308),
)
/** An object with the contract's field names holding values of every type. */
const fieldsObject = fc.dictionary(fc.constantFrom(...FIELDS), anyJson, { maxKeys: 6 }).map((o) => JSON.stringify(o))

const prototypePayloads = fc.constantFrom(
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"title":"t","content":"c","__proto__":{"isPinned":true,"polluted":"yes"}}',
  '{"title":"t","content":"c","tags":["a"],"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"isPinned":true,"__proto__":null}',
  '[{"__proto__":{"polluted":"yes"}}]',
  '{"a":{"__proto__":{"polluted":"yes"}}}',
  '{"fullName":"x","email":"__proto__","password":"constructor"}',
)
const deepNesting = fc
  .tuple(fc.integer({ min: 1, max: 200_000 }), fc.constantFrom('[', '{"title":'))
  .map(([n, open]) => (open === '[' ? '['.repeat(n) + ']'.repeat(n) : open.repeat(n) + '1' + '}'.repeat(n)))
const invalidUtf8 = fc
  .uint8Array({ maxLength: 64 })
  .map((bytes) =>
    Buffer.concat([
      Buffer.from('{"title":"'),
      Buffer.from([0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80]),
      Buffer.from(bytes),
      Buffer.from('","content":"c"}'),
    ]),
  )
/** Request bodies of every kind: none, objects of the contract's fields, any JSON, adversarial bytes. */
export const body: fc.Arbitrary<Buffer | undefined> = fc.oneof(
  fc.constant(undefined),
  fieldsObject.map((s) => Buffer.from(s)),
  anyJson.map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
  prototypePayloads.map((s) => Buffer.from(s)),
  deepNesting.map((s) => Buffer.from(s)),
  invalidUtf8,
  fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.from(b)),
  fc.constantFrom('', ' ', '{', '{"title":', 'null', '[]', '"x"', '1e999', '{"a":1,"a":2}').map((s) => Buffer.from(s)),
)
export const contentType = fc.option(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/JSON',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json-patch+json',
    'text/plain',
    'text/json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    '*/*',
    'application/',
    ';',
    'json',
  ),
  { nil: undefined },
)

export function requestArbitrary(target: FuzzTarget): fc.Arbitrary<FuzzRequest> {
  const noteId = fc.oneof(
    fc.constant(target.noteId),
    fc.stringMatching(/^[0-9a-f]{24}$/),
    fc.string({ unit: 'binary', maxLength: 40 }).map(encodeURIComponent),
    fc.constantFrom('%FF', '%', '%2F', '..', '%00', 'a'.repeat(2000), '__proto__', 'constructor'),
  )
  const query = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 600 }).map((q) => `query=${encodeURIComponent(q)}`),
    fc
      .array(fc.string({ maxLength: 10 }), { minLength: 2, maxLength: 5 })
      .map((qs) => qs.map((q) => `query=${encodeURIComponent(q)}`).join('&')),
    fc.constantFrom(
      '',
      'query',
      'query=',
      'query[]=a',
      'query[a]=b',
      'query=%FF',
      'query=(a%2B)%2B%24',
      '__proto__[x]=1',
      'constructor[prototype][x]=1',
      'query=a&&&&',
    ),
  )
  const auth = fc.oneof(
    fc.constant({ authorization: `Bearer ${target.token}` }),
    fc.constant({}),
    fc
      .string({ unit: 'binary-ascii', maxLength: 80 })
      .map((s) => ({ authorization: `Bearer ${s.replace(/[^\x20-\x7e]/g, '')}` })),
  )
  return fc
    .record({
      endpoint: fc.constantFrom(...ENDPOINTS),
      otherMethod: fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'), {
        freq: 5,
        nil: undefined,
      }),
      noteId,
      query,
      auth,
      body,
      contentType,
      trailingSlash: fc.boolean(),
      chunks: fc.option(fc.integer({ min: 2, max: 5 }), { freq: 3, nil: undefined }),
    })
    .map((r) => {
      let path = r.endpoint[1].replace(':id', r.noteId)
      if (r.trailingSlash) path += '/'
      if (r.endpoint[1] === '/search-notes') path += `?${r.query}`
      const headers: Record<string, string> = { ...r.auth }
      if (r.contentType !== undefined) headers['content-type'] = r.contentType
      return {
        method: r.otherMethod ?? r.endpoint[0],
        path,
        headers,
        ...(r.body ? { body: r.body } : {}),
        ...(r.chunks ? { chunks: r.chunks } : {}),
      }
    })
}

export interface Sent {
  status: number
  contentType: string | undefined
  text: string
}

export type Sender = (req: FuzzRequest) => Promise<Sent>

export function injectSender(app: FastifyInstance): Sender {
  return async (req) => {
    const res = await app.inject({
      method: req.method as 'GET',
      url: req.path,
      headers: req.headers,
      ...(req.body ? { payload: req.body } : {}),
    })
    return { status: res.statusCode, contentType: res.headers['content-type'] as string | undefined, text: res.body }
  }
}

/** A real socket client (node:http), which can send chunked bodies and raw bytes. */
export function socketSender(base: string): Sender & { close(): void } {
  const url = new URL(base)
  // A connection per request: a server that answers before reading a body (415, 401) may close
  // a kept-alive socket, and a reused socket would then fail on the client side, not the server.
  const agent = new Agent({ keepAlive: false, maxSockets: 4 })
  const send: Sender = (req) =>
    new Promise((resolve, reject) => {
      const headers = { ...req.headers }
      // Node's client frames GET and DELETE bodies only when asked to: say chunked explicitly.
      if (req.body && req.chunks) headers['transfer-encoding'] = 'chunked'
      else if (req.body) headers['content-length'] = String(req.body.length)
      const r = httpRequest(
        { host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent },
        (res) => {
          const parts: Buffer[] = []
          res.on('data', (d: Buffer) => parts.push(d))
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              contentType: res.headers['content-type'],
              text: Buffer.concat(parts).toString(),
            }),
          )
          res.on('error', reject)
        },
      )
      r.on('error', reject)
      r.setTimeout(30_000, () => r.destroy(new Error('no answer within 30 s')))
      if (req.body && req.chunks) {
        const size = Math.ceil(req.body.length / req.chunks)
        for (let i = 0; i < req.body.length; i += size) r.write(req.body.subarray(i, i + size))
      } else if (req.body) r.write(req.body)
      r.end()
    })
  return Object.assign(send, { close: () => agent.destroy() })
}

const prototypeNames = () =>
  [Object.prototype, Array.prototype, Function.prototype, String.prototype].map((p) =>
    Object.getOwnPropertyNames(p).sort().join(','),
  )

export interface FuzzResult {
  cases: number
  failures: number
  /** fast-check's report of the smallest failing request, when one failed. */
  report?: string
  statuses: Record<number, number>
  prototypePolluted: boolean
}

/** Runs `numRuns` generated requests through `send`; each must be answered in the contract's shape. */
export async function fuzz(target: FuzzTarget, send: Sender, numRuns: number, seed?: number): Promise<FuzzResult> {
  const statuses: Record<number, number> = {}
  const protoBefore = prototypeNames()
  let cases = 0
  const property = fc.asyncProperty(requestArbitrary(target), async (req) => {
    cases++
    const res = await send(req)
    statuses[res.status] = (statuses[res.status] ?? 0) + 1
    const problems = contractProblems({ method: req.method, path: req.path.split('?')[0]!, ...res })
    if (problems.length > 0)
      throw new Error(`${req.method} ${req.path.slice(0, 120)} -> ${res.status}: ${problems.join('; ')}`)
  })
  const details = await fc.check(property, {
    numRuns,
    ...(seed !== undefined ? { seed } : {}),
    endOnFailure: false,
    maxSkipsPerRun: 0,
  })
  const polluted = JSON.stringify(prototypeNames()) !== JSON.stringify(protoBefore) || 'polluted' in {}
  return {
    cases,
    failures: details.failed ? 1 : 0,
    ...(details.failed
      ? { report: `${String(details.errorInstance)}\n${fc.defaultReportMessage(details) ?? ''}` }
      : {}),
    statuses,
    prototypePolluted: polluted,
  }
}
