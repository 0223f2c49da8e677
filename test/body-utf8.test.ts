// A request body must be UTF-8 (src/app.ts, the JSON parser): bytes that are not (overlong
// forms, lone continuation bytes, cut sequences, encoded surrogates, bytes above F4) answer 400
// "Request body is not valid UTF-8" instead of being read as U+FFFD and acknowledged. Sent as raw
// bytes over a real socket, fixed cases and generated ones inside otherwise valid JSON, to
// endpoints with and without a token; valid multi-byte text (emoji, CJK) comes back byte for
// byte; a leading byte order mark is skipped; every other answer of the parser is unchanged.
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { type Account, type Harness, register, startHarness, uniqueEmail } from './support/harness.js'
import { storeKinds } from './support/stores.js'

const NOT_UTF8 = { error: true, message: 'Request body is not valid UTF-8' }

interface RawAnswer {
  status: number
  headers: string
  body: Buffer
}

/**
 * Sends one request of raw bytes on a new connection (closed after it) and reads the answer.
 * `chunks`: the body sent in chunked encoding, one chunk each, instead of with Content-Length.
 */
function exchange(
  port: number,
  method: string,
  path: string,
  body: Buffer | Buffer[],
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const chunked = Array.isArray(body)
  const head = [
    `${method} ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Connection: close',
    ...Object.entries({ 'content-type': 'application/json', ...headers }).map(([k, v]) => `${k}: ${v}`),
    chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`,
  ].join('\r\n')
  const payload = chunked
    ? Buffer.concat([
        ...body.flatMap((c) => [Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]),
        Buffer.from('0\r\n\r\n'),
      ])
    : body
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(Buffer.concat([Buffer.from(`${head}\r\n\r\n`), payload])),
    )
    socket.on('data', (d: Buffer) => parts.push(d))
    socket.on('error', reject)
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${method} ${path}`)))
    socket.on('close', () => {
      const all = Buffer.concat(parts)
      const end = all.indexOf('\r\n\r\n')
      const headers = all.subarray(0, end).toString('latin1')
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]), headers, body: all.subarray(end + 4) })
    })
  })
}

const json = (answer: RawAnswer): unknown => JSON.parse(answer.body.toString('utf8'))

/** Byte sequences that are not UTF-8, each named (Unicode §3.9, table 3-7). */
const INVALID: Record<string, number[]> = {
  'overlong NUL (C0 80)': [0xc0, 0x80],
  'overlong "/" (C1 AF)': [0xc1, 0xaf],
  'overlong 3-byte (E0 80 80)': [0xe0, 0x80, 0x80],
  'overlong 4-byte (F0 80 80 80)': [0xf0, 0x80, 0x80, 0x80],
  'lone continuation byte (80)': [0x80],
  'lone continuation byte (BF)': [0xbf],
  'truncated 2-byte (C3)': [0xc3],
  'truncated 3-byte (E2 82)': [0xe2, 0x82],
  'truncated 4-byte (F0 9F 98)': [0xf0, 0x9f, 0x98],
  'encoded high surrogate (ED A0 80)': [0xed, 0xa0, 0x80],
  'encoded low surrogate (ED BF BF)': [0xed, 0xbf, 0xbf],
  'encoded surrogate pair (ED A0 BD ED B8 80)': [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80],
  'above U+10FFFF (F4 90 80 80)': [0xf4, 0x90, 0x80, 0x80],
  'byte F5': [0xf5, 0x80, 0x80, 0x80],
  'byte FE': [0xfe],
  'byte FF': [0xff],
}

const cont = fc.integer({ min: 0x80, max: 0xbf })
const bytesOf = (...parts: Array<fc.Arbitrary<number | number[]>>) => fc.tuple(...parts).map((p) => p.flat())
/** One invalid sequence of each kind the decoder must refuse. */
const invalidSequence: fc.Arbitrary<number[]> = fc.oneof(
  bytesOf(cont), // a continuation byte with no lead
  bytesOf(fc.integer({ min: 0xc0, max: 0xc1 }), cont), // overlong 2-byte
  bytesOf(fc.constant(0xe0), fc.integer({ min: 0x80, max: 0x9f }), cont), // overlong 3-byte
  bytesOf(fc.constant(0xf0), fc.integer({ min: 0x80, max: 0x8f }), cont, cont), // overlong 4-byte
  bytesOf(fc.constant(0xed), fc.integer({ min: 0xa0, max: 0xbf }), cont), // a surrogate
  bytesOf(fc.constant(0xf4), fc.integer({ min: 0x90, max: 0xbf }), cont, cont), // above U+10FFFF
  bytesOf(fc.integer({ min: 0xf5, max: 0xff }), fc.array(cont, { maxLength: 3 })), // a byte no UTF-8 holds
  bytesOf(fc.integer({ min: 0xc2, max: 0xdf })), // 2-byte lead, cut
  bytesOf(fc.integer({ min: 0xe1, max: 0xec }), fc.array(cont, { maxLength: 1 })), // 3-byte lead, cut
  bytesOf(fc.integer({ min: 0xf1, max: 0xf3 }), fc.array(cont, { maxLength: 2 })), // 4-byte lead, cut
)

/** Valid text around it: any code point, non-BMP included; no unpaired surrogate. */
const validText = fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => s.isWellFormed())

/** The JSON of `fields` with `field` set to "<prefix><bytes><suffix>": valid but for the bytes, and where they start. */
function placed(
  fields: Record<string, string>,
  field: string,
  prefix: string,
  bytes: number[],
  suffix: string,
): { body: Buffer; at: number } {
  const marker = '\u0000MARK\u0000'
  const text = JSON.stringify({ ...fields, [field]: `${prefix}${marker}${suffix}` })
  const [head, tail] = text.split(JSON.stringify(marker).slice(1, -1)) as [string, string]
  return {
    body: Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(tail)]),
    at: Buffer.byteLength(head),
  }
}

const withInvalid = (
  fields: Record<string, string>,
  field: string,
  prefix: string,
  bytes: number[],
  suffix: string,
): Buffer => placed(fields, field, prefix, bytes, suffix).body

for (const kind of storeKinds()) {
  describe(`request bodies must be UTF-8 (${kind})`, () => {
    let h: Harness
    let a: Account
    let port: number
    let noteId: string
    before(async () => {
      h = await startHarness('http', { storeKind: kind })
      port = (h.app.server.address() as { port: number }).port
      a = await register(h.client)
      noteId = (
        (await h.client.request('POST', '/add-note', { token: a.token, body: { title: 't', content: 'c' } })).json as {
          note: { _id: string }
        }
      ).note._id
    })
    after(async () => h.close())

    /** Endpoints that read a body, with a body, and whether they take a token. */
    const endpoints = (): Array<{ method: string; path: string; auth: boolean; fields: Record<string, string> }> => [
      { method: 'POST', path: '/login', auth: false, fields: { email: a.email, password: 'x' } },
      {
        method: 'POST',
        path: '/create-account',
        auth: false,
        fields: { fullName: 'N', email: uniqueEmail('utf8'), password: 'pw' },
      },
      { method: 'POST', path: '/add-note', auth: true, fields: { title: 't', content: 'c' } },
      { method: 'PUT', path: `/edit-note/${noteId}`, auth: true, fields: { title: 't2' } },
      { method: 'PUT', path: '/edit-user', auth: true, fields: { fullName: 'Renamed' } },
      {
        method: 'PUT',
        path: '/change-password',
        auth: true,
        fields: { currentPassword: a.password, newPassword: 'another long password' },
      },
    ]

    it('answers 400 for each kind of invalid sequence, in a string or between tokens, with and without a token', async () => {
      for (const [name, bytes] of Object.entries(INVALID)) {
        for (const e of endpoints()) {
          const field = Object.keys(e.fields)[0]!
          const headers: Record<string, string> = e.auth ? { authorization: `Bearer ${a.token}` } : {}
          const inString = await exchange(
            port,
            e.method,
            e.path,
            withInvalid(e.fields, field, 'ok ', bytes, ' ok'),
            headers,
          )
          assert.deepEqual(
            [inString.status, json(inString)],
            [400, NOT_UTF8],
            `${name} in a string, ${e.method} ${e.path}`,
          )
          assert.match(inString.headers, /\r\ncontent-type: application\/json; charset=utf-8\r\n/i)
          const between = Buffer.concat([
            Buffer.from('{'),
            Buffer.from(bytes),
            Buffer.from(JSON.stringify(e.fields).slice(1)),
          ])
          const outside = await exchange(port, e.method, e.path, between, headers)
          assert.deepEqual(
            [outside.status, json(outside)],
            [400, NOT_UTF8],
            `${name} between tokens, ${e.method} ${e.path}`,
          )
        }
      }
      // Nothing was stored or changed by any of them.
      const me = (await h.client.request('GET', '/get-user', { token: a.token })).json as { user: { fullName: string } }
      assert.equal(me.user.fullName, 'Test User')
      const notes = (await h.client.request('GET', '/get-all-notes', { token: a.token })).json as {
        notes: Array<{ title: string }>
      }
      assert.deepEqual(
        notes.notes.map((n) => n.title),
        ['t'],
      )
    })

    it('a protected endpoint without a token still answers the bare 401 first, whatever the body holds', async () => {
      for (const e of endpoints().filter((x) => x.auth)) {
        const answer = await exchange(
          port,
          e.method,
          e.path,
          withInvalid(e.fields, Object.keys(e.fields)[0]!, '', [0xff], ''),
        )
        assert.equal(answer.status, 401, `${e.method} ${e.path}`)
        assert.equal(answer.body.toString(), 'Unauthorized')
      }
    })

    it('generated invalid sequences inside otherwise valid JSON: always 400 "Request body is not valid UTF-8"', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.nat({ max: 1000 }),
          validText,
          invalidSequence,
          validText,
          fc.boolean(),
          async (pick, prefix, bytes, suffix, chunked) => {
            const list = endpoints()
            const e = list[pick % list.length]!
            const { body, at } = placed(e.fields, Object.keys(e.fields)[0]!, prefix, bytes, suffix)
            // Chunked: the body cut after the sequence's first byte, as a client's writes may cut it.
            const sent = chunked ? [body.subarray(0, at + 1), body.subarray(at + 1)] : body
            const headers: Record<string, string> = e.auth ? { authorization: `Bearer ${a.token}` } : {}
            const answer = await exchange(port, e.method, e.path, sent, headers)
            assert.deepEqual(
              [answer.status, json(answer)],
              [400, NOT_UTF8],
              `${e.method} ${e.path} ${Buffer.from(bytes).toString('hex')}`,
            )
          },
        ),
        { numRuns: kind === 'postgresql' ? 100 : 200 },
      )
    })

    it('valid multi-byte text comes back byte for byte, also when a character is split between chunks', async () => {
      const title = '😀 李小龍 한국어 émoji 👨‍👩‍👧 \u{10ffff} محمد'
      const body = Buffer.from(JSON.stringify({ title, content: '中文内容' }))
      const sent = await exchange(port, 'POST', '/add-note', body, { authorization: `Bearer ${a.token}` })
      assert.equal(sent.status, 200, sent.body.toString())
      assert.ok(sent.body.includes(Buffer.from(title)), 'the title bytes, as sent')
      assert.equal((json(sent) as { note: { title: string } }).note.title, title)
      // The 4 bytes of 😀 cut 2 + 2 between two chunks.
      const split = body.indexOf(Buffer.from('😀')) + 2
      const chunked = await exchange(port, 'POST', '/add-note', [body.subarray(0, split), body.subarray(split)], {
        authorization: `Bearer ${a.token}`,
      })
      assert.equal(chunked.status, 200, chunked.body.toString())
      assert.ok(chunked.body.includes(Buffer.from(title)))

      await fc.assert(
        fc.asyncProperty(
          validText.filter((s) => s.trim() !== ''),
          async (text) => {
            const answer = await exchange(
              port,
              'POST',
              '/add-note',
              Buffer.from(JSON.stringify({ title: text, content: text })),
              { authorization: `Bearer ${a.token}` },
            )
            assert.equal(answer.status, 200, answer.body.toString())
            // JSON.stringify writes a character outside ASCII as its UTF-8 bytes, as the server does.
            assert.ok(
              answer.body.includes(Buffer.from(JSON.stringify(text))),
              `${JSON.stringify(text)} comes back as sent`,
            )
            const id = (json(answer) as { note: { _id: string } }).note._id
            const stored = await h.store.findNote(a.userId, id)
            assert.deepEqual(Buffer.from(stored?.title ?? ''), Buffer.from(text))
          },
        ),
        { numRuns: kind === 'postgresql' ? 30 : 60 },
      )
    })

    it('skips a byte order mark at the start, keeps one inside a string, and keeps every other answer', async () => {
      const bom = Buffer.from([0xef, 0xbb, 0xbf])
      const login = await exchange(
        port,
        'POST',
        '/login',
        Buffer.concat([bom, Buffer.from(JSON.stringify({ email: a.email, password: a.password }))]),
      )
      assert.equal(login.status, 200, login.body.toString())
      const onlyBom = await exchange(port, 'POST', '/login', bom)
      assert.deepEqual(json(onlyBom), { error: true, message: 'Email is required' })
      const inside = await exchange(
        port,
        'POST',
        '/add-note',
        Buffer.from(JSON.stringify({ title: '\ufeffkept', content: 'c' })),
        { authorization: `Bearer ${a.token}` },
      )
      assert.equal((json(inside) as { note: { title: string } }).note.title, '\ufeffkept')
      // The charset parameter does not change the rule: a Latin-1 é is not UTF-8.
      const latin1 = await exchange(
        port,
        'POST',
        '/login',
        Buffer.from('{"email":"\u00e9","password":"x"}', 'latin1'),
        { 'content-type': 'application/json; charset=latin1' },
      )
      assert.deepEqual([latin1.status, json(latin1)], [400, NOT_UTF8])
      // Unchanged: an empty body counts as {}, malformed JSON, an escaped unpaired surrogate.
      assert.deepEqual(json(await exchange(port, 'POST', '/login', Buffer.alloc(0))), {
        error: true,
        message: 'Email is required',
      })
      assert.deepEqual(json(await exchange(port, 'POST', '/login', Buffer.from('{"email": '))), {
        error: true,
        message: 'Request body is not valid JSON',
      })
      const escaped = await exchange(port, 'POST', '/add-note', Buffer.from('{"title":"t","content":"a\\ud800b"}'), {
        authorization: `Bearer ${a.token}`,
      })
      assert.deepEqual(json(escaped), {
        error: true,
        message: 'content must be valid Unicode text: it contains an unpaired surrogate',
      })
    })
  })
}
