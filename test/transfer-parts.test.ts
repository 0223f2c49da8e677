// The pieces of the transfer commands on their own: the JSON splitter at every chunk boundary,
// format detection, export of one user, the progress reporter in both output modes, and the
// escaping of what import and export print of users' text (src/unicode.ts), on both stores.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ObjectId } from 'bson'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { type RawRecord, splitJson } from '../src/transfer/json-splitter.js'
import { Progress } from '../src/transfer/progress.js'
import { detectFormat, linesOf } from '../src/transfer/source.js'
import { type Layout, LAYOUTS, notesFile, sampleData, usersFile } from './support/mongoexport.js'
import { openTestStore, storeKinds } from './support/stores.js'
import { TempDir, exportTexts, runImport } from './support/transfer.js'
import { listedNotes } from './support/listed.js'

/** The code points of `text` a terminal acts on: C0 but the newline, DEL, C1, the bidi controls. */
const terminalControls = (text: string) =>
  [...text]
    .map((c) => c.codePointAt(0)!)
    .filter((u) => (u < 0x20 && u !== 0x0a) || (u >= 0x7f && u <= 0x9f) || BIDI_CONTROLS.includes(u))
const BIDI_CONTROLS = [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]
const HOSTILE = 'Ops\u001b]0;owned\u0007\u001b[2J\r\nforged\u009b31m\u0085\u202egnp.exe\u2066\u200f\u007f'

async function split(array: boolean, text: string, chunkSize: number): Promise<RawRecord[]> {
  async function* chunks() {
    for (let i = 0; i < text.length; i += chunkSize) yield text.slice(i, i + chunkSize)
  }
  const out: RawRecord[] = []
  for await (const record of splitJson(chunks(), array)) out.push(record)
  return out
}

let dir: TempDir
before(() => {
  dir = new TempDir()
})
after(() => dir.remove())

describe('JSON splitter', () => {
  const array = '[{"a":"x,]}\\"y"},\n {"b":[1,2,{"c":"[{"}]} ,\n{"bad":1]\n,{"ok":true}]\n'
  it('splits array elements at any chunk boundary, with lines, past a malformed element', async () => {
    const expected = [
      { line: 1, index: 0, text: '{"a":"x,]}\\"y"}' },
      { line: 2, index: 1, text: '{"b":[1,2,{"c":"[{"}]} ' },
      { line: 3, index: 2, text: '{"bad":1]\n' },
      { line: 4, index: 3, text: '{"ok":true}' },
    ]
    for (const size of [1, 2, 3, 7, 1000])
      assert.deepEqual(await split(true, array, size), expected, `chunk size ${size}`)
  })

  it('splits concatenated pretty documents', async () => {
    const text = '{\n\t"a": 1\n}\n{\n\t"b": "}"\n}\n'
    for (const size of [1, 5, 1000]) {
      assert.deepEqual(await split(false, text, size), [
        { line: 1, index: 0, text: '{\n\t"a": 1\n}' },
        { line: 4, index: 1, text: '{\n\t"b": "}"\n}' },
      ])
    }
  })

  it('reports a stray separator between pretty documents as a record of its own and goes on', async () => {
    assert.deepEqual(await split(false, '{"a":1},\n]{"b":2}\n', 3), [
      { line: 1, index: 0, text: '{"a":1}' },
      { line: 1, index: 1, text: ',' },
      { line: 2, index: 2, text: ']{"b":2}' },
    ])
  })

  it('reports truncation, text after the array, and a file that is no array', async () => {
    assert.deepEqual((await split(true, '[{"a":1},{"b":', 4)).at(-1), {
      line: 1,
      index: 1,
      error: 'the file ends inside a record (truncated?)',
      fatal: true,
    })
    assert.deepEqual((await split(true, '[{"a":1}', 4)).at(-1), {
      line: 1,
      index: 1,
      error: 'the file ends before the array is closed (truncated?)',
      fatal: true,
    })
    assert.equal((await split(true, '[{"a":1}] x', 4)).at(-1)?.error, 'text after the end of the array')
    assert.equal((await split(true, 'x', 4)).at(-1)?.error, 'the file does not start with "["')
    assert.deepEqual(await split(true, ' [ ] ', 1), [])
  })
})

describe('format detection', () => {
  const expected: Record<Layout, string> = { lines: 'lines', array: 'array', 'pretty-array': 'array', pretty: 'pretty' }
  for (const how of LAYOUTS) {
    it(`recognises ${how}`, async () => {
      const { users } = sampleData()
      assert.equal(await detectFormat(dir.file(`detect-${how}.json`, usersFile(users, 'relaxed', how))), expected[how])
    })
  }
})

describe('JSON lines', () => {
  // U+2028 and U+2029 are text inside a JSON string, never line ends; \r\n is one line end.
  const text = '{"a":"x\u2028y\u2029z"}\r\n\r\n{"b":1}\r{"c":2}\n{"d":"\u2028"}'
  const expected = ['{"a":"x\u2028y\u2029z"}', '', '{"b":1}', '{"c":2}', '{"d":"\u2028"}']

  it('ends lines at \\n, \\r\\n and \\r only, at every chunk size', async () => {
    for (let size = 1; size <= text.length; size++) {
      async function* chunks() {
        for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size)
      }
      const lines: string[] = []
      for await (const line of linesOf(chunks())) lines.push(line)
      assert.deepEqual(lines, expected, `chunks of ${size}`)
    }
  })

  it('imports a note holding U+2028 and U+2029 whole, and its export again', async () => {
    const { users, notes } = sampleData()
    const note = { ...notes[0]!, content: 'one\u2028two\u2029three' }
    const store = openSqliteStore({ dataDir: ':memory:' })
    try {
      await runImport(store, { users: dir.file('ls-u.json', usersFile(users, 'relaxed', 'lines')) })
      const first = await runImport(store, { notes: dir.file('ls-n.json', notesFile([note], 'relaxed', 'lines')) })
      assert.deepEqual([first.summary.notes.imported, first.summary.notes.rejected], [1, 0], first.output)
      assert.equal((await store.findNote(note.userId, note._id))?.content, note.content)
      const out = await exportTexts(store, dir, 'ls-export', {})
      const again = await runImport(store, { notes: dir.file('ls-again.json', out.notes) })
      assert.deepEqual([again.summary.notes.rejected, again.summary.notes.skipped], [0, 1], again.output)
    } finally {
      await store.close()
    }
  })
})

describe('export', () => {
  it('--user writes one user and only their notes; without hashes there is no password', async () => {
    const { users, notes } = sampleData()
    const store = openSqliteStore({ dataDir: ':memory:' })
    try {
      await runImport(store, {
        users: dir.file('e-u.json', usersFile(users, 'relaxed', 'lines')),
        notes: dir.file('e-n.json', notesFile(notes, 'relaxed', 'lines')),
      })
      const ada = users[0]!
      const out = await exportTexts(store, dir, 'one', {
        userEmail: ` ${ada.email.toUpperCase()} `,
        withPasswordHashes: false,
      })
      const exportedUsers = out.users
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      assert.deepEqual(exportedUsers, [
        {
          _id: { $oid: ada._id },
          fullName: ada.fullName,
          email: ada.email,
          createdOn: { $date: ada.createdOn!.toISOString() },
        },
      ])
      const exportedNotes = out.notes
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { _id: { $oid: string }; userId: string })
      const adas = notes
        .filter((n) => n.userId === ada._id)
        .map((n) => n._id)
        .sort()
      assert.deepEqual(
        exportedNotes.map((n) => n._id.$oid),
        adas,
      )
      assert.ok(exportedNotes.every((n) => n.userId === ada._id))

      await assert.rejects(
        exportTexts(store, dir, 'nobody', { userEmail: 'nobody@example.com' }),
        /no user has the email "nobody@example.com"/,
      )
    } finally {
      await store.close()
    }
  })
})

for (const kind of storeKinds()) {
  describe(`what import and export print of users' text is escaped (${kind})`, () => {
    it('import: rejection lines quoting the file; export: DEL, C1 and bidi controls as \\u escapes, the same data', async () => {
      const store = await openTestStore(kind)
      const again = await openTestStore(kind)
      try {
        const user = (id: string, email: string) =>
          JSON.stringify({
            _id: { $oid: id },
            fullName: HOSTILE,
            email,
            password: 'pw',
            createdOn: { $date: '2023-01-02T03:04:05.000Z' },
          })
        const email = `ops\u001b[31m\u0085.${kind}@example.com`
        const userId = new ObjectId().toHexString()
        const lines = [user(userId, email), user(new ObjectId().toHexString(), email), `{"_id": \u001b[2J\u009b\u202e}`]
        const { summary, output } = await runImport(store, {
          users: dir.file(`hostile-${kind}.json`, `${lines.join('\n')}\n`),
        })
        assert.deepEqual([summary.users.imported, summary.users.rejected], [1, 2], output)
        assert.match(output, /duplicate email "ops\\u001b\[31m\\u0085\./, 'the email is shown, escaped')
        assert.match(output, /malformed user: not valid Extended JSON/)
        assert.deepEqual(terminalControls(output), [], JSON.stringify(output))

        const note = {
          _id: { $oid: new ObjectId().toHexString() },
          title: HOSTILE,
          content: `body ${HOSTILE}`,
          tags: [HOSTILE],
          userId,
        }
        await runImport(store, { notes: dir.file(`hostile-notes-${kind}.json`, `${JSON.stringify(note)}\n`) })
        for (const format of ['lines', 'array'] as const) {
          const out = await exportTexts(store, dir, `hostile-${kind}-${format}`, { format })
          for (const text of [out.users, out.notes]) assert.deepEqual(terminalControls(text), [], JSON.stringify(text))
          assert.ok(out.notes.includes('\\u0085') && out.notes.includes('\\u202e'), out.notes)
          // The same data: it imports elsewhere as it was stored.
          const reimported = await runImport(again, {
            users: dir.file(`re-u-${kind}-${format}.json`, out.users),
            notes: dir.file(`re-n-${kind}-${format}.json`, out.notes),
          })
          assert.equal(reimported.summary.users.rejected + reimported.summary.notes.rejected, 0, reimported.output)
          const [stored] = await listedNotes(again, userId)
          assert.deepEqual([stored?.title, stored?.content, stored?.tags], [HOSTILE, `body ${HOSTILE}`, [HOSTILE]])
          assert.equal((await again.findUserById(userId))?.fullName, HOSTILE)
        }
      } finally {
        await store.close()
        await again.close()
      }
    })
  })
}

describe('progress', () => {
  const counts = { read: 50, imported: 40, skipped: 5, rejected: 5 }
  it('draws one line in place on a terminal and steps aside for messages', () => {
    let out = ''
    let t = 0
    const p = new Progress({ write: (s: string) => (out += s), columns: 200 }, { tty: true, now: () => t })
    p.begin('users', 1000, () => 500)
    t = 50
    p.tick(counts)
    assert.equal(out, '', 'throttled')
    t = 1000
    p.tick(counts)
    assert.equal(
      out,
      `\r\x1b[2Kusers ${'█'.repeat(12)}${'░'.repeat(12)}  50%  50 read, 40 imported, 5 skipped, 5 rejected, 50/s`,
    )
    p.note('file:3: malformed')
    assert.ok(out.endsWith('\r\x1b[2Kfile:3: malformed\n'))
    p.end(counts)
    assert.ok(out.endsWith('100%  50 read, 40 imported, 5 skipped, 5 rejected, 50/s\n'))
  })

  it('prints plain lines when not a terminal', () => {
    let out = ''
    let t = 0
    const p = new Progress({ write: (s: string) => (out += s) }, { tty: false, now: () => t })
    p.begin('notes', 100, () => 25)
    t = 5000
    p.tick(counts)
    t = 10_000
    p.end(counts)
    assert.equal(
      out,
      'notes: 25% 50 read, 40 imported, 5 skipped, 5 rejected, 10/s\nnotes: 100% 50 read, 40 imported, 5 skipped, 5 rejected, 5/s, 10.0 s\n',
    )
    assert.ok(!out.includes('\x1b'), 'no terminal escapes')
  })
})
