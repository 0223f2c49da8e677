// Text in every field, on both stores: arbitrary strings (unpaired surrogates, non-BMP
// characters, control characters, NUL, U+2028/2029, noncharacters) through add, edit, list,
// search, export and import. Either the request is refused with the 400 that names the field, or
// what the service answers is what every later read returns, decoded string for string; and every
// response body, and the export file, is valid UTF-8. A name (fullName) must also hold no control
// character (test/name-text.test.ts).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, it } from 'node:test'
import { EJSON, ObjectId } from 'bson'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../src/app.js'
import { emailKeyOf } from '../src/services/accounts.js'
import type { NoteRecord } from '../src/store/types.js'
import { exportData } from '../src/transfer/export.js'
import { controlCharactersMessage, isNameText, notWellFormedMessage } from '../src/unicode.js'
import { TEST_SECRET, testConfig } from './support/harness.js'
import { responseChecker } from './support/openapi-check.js'
import { SERVICE_LIMITS, type TestStore, openTestStore, storeKinds } from './support/stores.js'
import { TempDir, runImport } from './support/transfer.js'
import { listedNotes } from './support/listed.js'

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** A few characters, weighted towards what stores and JSON get wrong; no unpaired surrogate. */
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 4 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) }, // any code point, non-BMP included
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '\u0000',
      '\u0001',
      '\u001f',
      '\u007f',
      '\n',
      '\r',
      '\t',
      '\u2028',
      '\u2029',
      '\ufeff',
      '\ufffd',
      '\uffff',
      '\ufffe',
      '\ud83d\ude00',
      '\u{10ffff}',
      '"',
      '\\',
      'ｋ',
      '\u212a',
      'e\u0301',
    ),
  },
)
/** Half a surrogate pair: next to another half it may pair up, which is fine (the check decides). */
const half = fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u))
const joined = (parts: fc.Arbitrary<string>, maxParts: number) =>
  fc.array(parts, { maxLength: maxParts }).map((p) => p.join(''))
/** Arbitrary text; one in eight may hold unpaired surrogates, so that most requests are accepted. */
const text = (maxParts = 8) =>
  fc.oneof(
    { weight: 7, arbitrary: joined(piece, maxParts) },
    { weight: 1, arbitrary: joined(fc.oneof(piece, half), maxParts) },
  )
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 8 })

interface Answer {
  status: number
  /** The body decoded as UTF-8, failing on any byte sequence that is not. */
  text: string
  json: unknown
}

interface Client {
  send(method: string, path: string, body?: unknown): Promise<Answer>
}

const bodyOf = (raw: Buffer | Uint8Array): { text: string; json: unknown } => {
  const text = utf8.decode(raw) // throws on invalid UTF-8
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { text, json }
}

function injectClient(app: FastifyInstance, token: () => string | undefined): Client {
  const check = responseChecker(app.swagger())
  return {
    async send(method, path, body) {
      const headers: Record<string, string> = {}
      if (token()) headers.authorization = `Bearer ${token()}`
      if (body !== undefined) headers['content-type'] = 'application/json'
      const res = await app.inject({
        method: method as 'GET',
        url: path,
        headers,
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      })
      const answer = { status: res.statusCode, ...bodyOf(res.rawPayload) }
      check(method, path, { ...answer, headers: res.headers as Record<string, string> })
      return answer
    },
  }
}

function socketClient(base: string, token: () => string | undefined): Client {
  return {
    async send(method, path, body) {
      const headers: Record<string, string> = {}
      if (token()) headers.authorization = `Bearer ${token()}`
      if (body !== undefined) headers['content-type'] = 'application/json'
      const res = await fetch(base + path, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      })
      return { status: res.status, ...bodyOf(new Uint8Array(await res.arrayBuffer())) }
    },
  }
}

interface NoteInput {
  title?: string
  content?: string
  tags?: string[]
}

const refused = (field: string) => ({ error: true, message: notWellFormedMessage(field) })

/**
 * The answer the contract and the Unicode rule give, in the documented order (fields.ts):
 * required fields first, then each field in schema order. undefined: accepted.
 */
function expectedRefusal(input: NoteInput, creating: boolean): object | undefined {
  if (creating && !input.title) return { message: 'Title is required' }
  if (creating && !input.content) return { message: 'content is required' }
  if (input.title && !input.title.isWellFormed()) return refused('title')
  if (input.content && !input.content.isWellFormed()) return refused('content')
  if (input.tags && !input.tags.every((t) => t.isWellFormed())) return refused('tags')
  return undefined
}

const noteFields = (n: NoteRecord) => ({
  _id: n._id,
  title: n.title,
  content: n.content,
  tags: n.tags,
  isPinned: n.isPinned,
})

/** Every later read of the note: the listing, a search that matches everything, and the export. */
async function readsOf(client: Client, store: TestStore, dir: TempDir, id: string): Promise<Array<[string, unknown]>> {
  const found = (answer: Answer) => (answer.json as { notes: NoteRecord[] }).notes.find((n) => n._id === id)
  const listed = await client.send('GET', '/get-all-notes')
  assert.equal(listed.status, 200, listed.text)
  const searched = await client.send('GET', `/search-notes?query=${encodeURIComponent('^')}`)
  assert.equal(searched.status, 200, searched.text)
  const file = dir.file(`export-${id}.json`)
  await exportData({ store, notesOut: file })
  const exported = utf8
    .decode(readFileSync(file))
    .split('\n')
    .filter(Boolean)
    .map((line) => EJSON.parse(line, { relaxed: true }) as { _id: ObjectId } & NoteRecord)
    .find((n) => n._id.toHexString() === id)
  return [
    ['get-all-notes', found(listed) && noteFields(found(listed)!)],
    ['search-notes', found(searched) && noteFields(found(searched)!)],
    ['export', exported && noteFields({ ...exported, _id: exported._id.toHexString() })],
  ]
}

async function assertReadsEqual(
  client: Client,
  store: TestStore,
  dir: TempDir,
  acknowledged: NoteRecord,
): Promise<void> {
  for (const [read, seen] of await readsOf(client, store, dir, acknowledged._id)) {
    assert.deepEqual(seen, noteFields(acknowledged), `${read} differs from the acknowledged note`)
  }
}

for (const kind of storeKinds()) {
  describe(`text fields round-trip exactly or are refused by name (${kind})`, () => {
    let store: TestStore
    let app: FastifyInstance
    let client: Client
    let token: string | undefined
    let userId: string
    let dir: TempDir

    before(async () => {
      dir = new TempDir()
      store = await openTestStore(kind, true, SERVICE_LIMITS)
      app = await buildApp({
        config: testConfig({ bruteForce: { ...testConfig().bruteForce, enabled: false } }),
        store,
        secret: TEST_SECRET,
      })
      await app.ready()
      client = injectClient(app, () => token)
      const created = await client.send('POST', '/create-account', {
        fullName: 'Text',
        email: `text-${kind}@example.com`,
        password: 'pw',
      })
      const body = created.json as { accessToken: string; user: { _id: string } }
      token = body.accessToken
      userId = body.user._id
    })
    after(async () => {
      await app.close()
      await store.close()
      dir.remove()
    })

    it('add-note, then edit-note: refused naming the field, or answered as every later read returns', async () => {
      const input = fc.record({
        title: maybe(text()),
        content: maybe(text()),
        tags: maybe(fc.array(text(3), { maxLength: 3 })),
      })
      const seen = { accepted: 0, refused: 0, editAccepted: 0, editRefused: 0 }
      const numRuns = kind === 'postgresql' ? 40 : 60
      await fc.assert(
        fc.asyncProperty(input, input, async (add, edit) => {
          const added = await client.send('POST', '/add-note', add)
          const refusal = expectedRefusal(add, true)
          if (refusal) {
            seen.refused++
            assert.equal(added.status, 400, added.text)
            assert.deepEqual(added.json, refusal)
            return
          }
          seen.accepted++
          assert.equal(added.status, 200, added.text)
          const note = (added.json as { note: NoteRecord }).note
          assert.deepEqual(noteFields(note), {
            _id: note._id,
            title: add.title,
            content: add.content,
            tags: add.tags ?? [],
            isPinned: false,
          })
          await assertReadsEqual(client, store, dir, note)

          const edited = await client.send('PUT', `/edit-note/${note._id}`, edit)
          const editRefusal = expectedRefusal(edit, false)
          if (editRefusal) {
            seen.editRefused++
            assert.equal(edited.status, 400, edited.text)
            assert.deepEqual(edited.json, editRefusal)
            await assertReadsEqual(client, store, dir, note) // nothing changed
            return
          }
          seen.editAccepted++
          assert.equal(edited.status, 200, edited.text)
          const after = (edited.json as { note: NoteRecord }).note
          // Only truthy fields apply (docs/contract.md, "PUT /edit-note/:noteId"): an empty title leaves it; tags [] is truthy.
          const expected = {
            ...note,
            ...(edit.title ? { title: edit.title } : {}),
            ...(edit.content ? { content: edit.content } : {}),
            ...(edit.tags ? { tags: edit.tags } : {}),
          }
          assert.deepEqual(noteFields(after), noteFields(expected))
          await assertReadsEqual(client, store, dir, after)
        }),
        {
          numRuns,
          includeErrorInReport: true,
          // Run first, so that every side is exercised whatever the random draws (a run of 40
          // once drew no refused edit): an accepted add with an accepted edit, and with a refused one.
          examples: [
            [
              { title: 'kept', content: 'as written', tags: ['😀'] },
              { title: 'edited \u{1F600}', content: undefined, tags: undefined },
            ],
            [
              { title: 'kept', content: 'as written', tags: undefined },
              { title: undefined, content: 'x\ud800y', tags: undefined },
            ],
            [
              { title: undefined, content: 'no title', tags: undefined },
              { title: undefined, content: undefined, tags: undefined },
            ],
          ],
        },
      )
      // Both sides of the property were exercised.
      assert.ok(seen.accepted >= numRuns / 10 && seen.refused >= numRuns / 10, JSON.stringify(seen))
      assert.ok(seen.editAccepted >= 1 && seen.editRefused >= 1, JSON.stringify(seen))
    })

    it('search-notes: any query is answered in valid UTF-8, with notes as stored', async () => {
      // A query string cannot carry an unpaired surrogate: its parser keeps an invalid escape
      // (%ED%A0%80) as written. Both spellings are sent: UTF-8 escapes, and WTF-8 ones for a
      // string that UTF-8 cannot encode.
      const wtf8 = (s: string) =>
        [...s]
          .map((c) => {
            const u = c.codePointAt(0)!
            if (u < 0xd800 || u > 0xdfff) return encodeURIComponent(c)
            return [0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f)]
              .map((b) => `%${b.toString(16).toUpperCase()}`)
              .join('')
          })
          .join('')
      const stored = new Map((await listedNotes(store, userId)).map((n) => [n._id, noteFields(n)]))
      await fc.assert(
        fc.asyncProperty(text(), async (query) => {
          const answer = await client.send('GET', `/search-notes?query=${wtf8(query)}`)
          assert.ok(answer.status === 200 || answer.status === 400, answer.text)
          if (answer.status === 200) {
            for (const n of (answer.json as { notes: NoteRecord[] }).notes)
              assert.deepEqual(noteFields(n), stored.get(n._id))
          } else assert.equal((answer.json as { error: boolean }).error, true)
        }),
        { numRuns: 100 },
      )
    })

    it('import: a record is rejected naming the field with file:line, or stored as it was in the file', async () => {
      const record = fc.record({ title: text(), content: text(), tags: fc.array(text(3), { maxLength: 3 }) })
      let run = 0
      const seen = { imported: 0, rejected: 0 }
      const numRuns = kind === 'postgresql' ? 25 : 40
      await fc.assert(
        fc.asyncProperty(record, async (r) => {
          run++
          const id = new ObjectId().toHexString()
          // JSON.stringify writes an unpaired surrogate as the escape "\ud800": the file is UTF-8.
          const line = `{"_id":{"$oid":"${id}"},"title":${JSON.stringify(r.title)},"content":${JSON.stringify(r.content)},"tags":${JSON.stringify(r.tags)},"userId":"${userId}","createdOn":{"$date":"2024-01-02T03:04:05.678Z"},"__v":0}\n`
          const file = dir.file(`import-${run}.json`, line)
          const { summary, output } = await runImport(store, { notes: file })
          const bad = (['title', 'content', 'tags'] as const).find(
            (f) => !(f === 'tags' ? r.tags.every((t) => t.isWellFormed()) : r[f].isWellFormed()),
          )
          if (bad) {
            seen.rejected++
            assert.equal(summary.notes.rejected, 1, output)
            assert.ok(output.includes(`${file}:1: malformed note: ${notWellFormedMessage(bad)}`), output)
            assert.equal(await store.findNote(userId, id), undefined)
            return
          }
          seen.imported++
          assert.equal(summary.notes.imported, 1, output)
          const listed = await client.send('GET', '/get-all-notes')
          const stored = (listed.json as { notes: NoteRecord[] }).notes.find((n) => n._id === id)
          assert.deepEqual(stored && noteFields(stored), {
            _id: id,
            title: r.title,
            content: r.content,
            tags: r.tags,
            isPinned: false,
          })
          // The export of it imports again as the same record: a quiet skip, not a conflict.
          const out = dir.file(`reimport-${run}.json`)
          await exportData({ store, notesOut: out })
          const again = await runImport(store, { notes: out })
          assert.equal(again.summary.notes.rejected, 0, again.output)
          assert.equal(again.summary.notes.imported, 0, again.output)
        }),
        { numRuns, includeErrorInReport: true },
      )
      assert.ok(seen.imported >= numRuns / 10 && seen.rejected >= 1, JSON.stringify(seen))
    })

    it('accounts: fullName, email and password are refused by name, or answered and logged in with as stored', async () => {
      const registered = new Set<string>([emailKeyOf(`text-${kind}@example.com`)])
      const account = fc.record({ fullName: text(4), email: text(4).map((s) => `${s}@x`), password: text(4) })
      let loggedIn = 0
      await fc.assert(
        fc.asyncProperty(account, async (a) => {
          const saved = token
          token = undefined
          try {
            const created = await client.send('POST', '/create-account', a)
            const first = (['fullName', 'email', 'password'] as const).find((f) => !a[f].isWellFormed())
            if (!a.fullName) return assert.deepEqual(created.json, { error: true, message: 'Full Name is required' })
            if (!a.password) return assert.deepEqual(created.json, { error: true, message: 'Password is required' })
            // Field by field: fullName's unpaired surrogate, then its control characters, then the others.
            const refusal =
              first === 'fullName'
                ? refused(first)
                : !isNameText(a.fullName)
                  ? { error: true, message: controlCharactersMessage('fullName') }
                  : first && refused(first)
            if (refusal) {
              assert.equal(created.status, 400, created.text)
              return assert.deepEqual(created.json, refusal)
            }
            assert.equal(created.status, 200, created.text)
            const key = emailKeyOf(a.email)
            if (registered.has(key))
              return assert.deepEqual(created.json, { error: true, message: 'User already exists' })
            registered.add(key)
            const user = (created.json as { user: { fullName: string; email: string } }).user
            assert.deepEqual(
              { fullName: user.fullName, email: user.email },
              { fullName: a.fullName, email: a.email.trim() },
            )
            const login = await client.send('POST', '/login', { email: a.email, password: a.password })
            assert.equal(login.status, 200, login.text)
            assert.equal((login.json as { email: string }).email, a.email.trim())
            token = (login.json as { accessToken: string }).accessToken
            const me = await client.send('GET', '/get-user')
            const stored = (me.json as { user: { fullName: string; email: string } }).user
            assert.deepEqual(
              { fullName: stored.fullName, email: stored.email },
              { fullName: a.fullName, email: a.email.trim() },
            )
            loggedIn++
          } finally {
            token = saved
          }
        }),
        { numRuns: 20 },
      )
      assert.ok(loggedIn >= 1, 'no account was created')
    })

    it('over a real socket too: a refused surrogate, and non-BMP, NUL and line separators answered as stored', async () => {
      const base = await app.listen({ port: 0, host: '127.0.0.1' })
      const socket = socketClient(base, () => token)
      const bad = await socket.send('POST', '/add-note', { title: 't', content: 'x\ud800y', tags: ['\ud800'] })
      assert.equal(bad.status, 400)
      assert.deepEqual(bad.json, refused('content'))
      const badTag = await socket.send('POST', '/add-note', { title: 't', content: 'c', tags: ['ok', '\udfff'] })
      assert.deepEqual(badTag.json, refused('tags'))
      const odd = {
        title: '\ud83d\ude00 \u{10ffff}',
        content: 'a\u0000b\u2028c\u2029d\u0007\ufffe',
        tags: ['\uffff', '\u212a'],
      }
      const added = await socket.send('POST', '/add-note', odd)
      assert.equal(added.status, 200, added.text)
      const note = (added.json as { note: NoteRecord }).note
      assert.deepEqual({ title: note.title, content: note.content, tags: note.tags }, odd)
      await assertReadsEqual(socket, store, dir, note)
    })
  })
}
