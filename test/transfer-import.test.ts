// notes-service import: every mongoexport shape, kept ids and dates, argon2id on the way in,
// idempotence, round trips through export, malformed records, duplicate emails, --strict.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ObjectId } from 'bson'
import { emptyInput } from '../src/note-shape.js'
import { emailKeyOf } from '../src/services/accounts.js'
import { defaultPasswordHasher } from '../src/services/passwords.js'
import { openSqliteStore } from '../src/store/sqlite/index.js'
import { StrictStop } from '../src/transfer/import.js'
import { JSON_MODES, LAYOUTS, notesFile, sampleData, userDocument, usersFile } from './support/mongoexport.js'
import { TempDir, exportTexts, runImport } from './support/transfer.js'

const memoryStore = () => openSqliteStore({ dataDir: ':memory:' })
const idTime = (id: string) => ObjectId.createFromHexString(id).getTimestamp().toISOString()

let dir: TempDir
before(() => {
  dir = new TempDir()
})
after(() => dir.remove())

describe('import: every mongoexport shape', () => {
  for (const mode of JSON_MODES) {
    for (const how of LAYOUTS) {
      it(`reads ${how} in ${mode} Extended JSON, keeping ids, dates and the original's defaults`, async () => {
        const { users, notes } = sampleData()
        const store = memoryStore()
        try {
          const { summary, output } = await runImport(store, {
            users: dir.file(`u-${mode}-${how}.json`, usersFile(users, mode, how)),
            notes: dir.file(`n-${mode}-${how}.json`, notesFile(notes, mode, how)),
          })
          assert.equal(summary.users.imported, 3, output)
          assert.equal(summary.notes.imported, 4, output)
          assert.equal(summary.users.rejected + summary.notes.rejected, 0, output)

          for (const u of users) {
            const stored = await store.findUserById(u._id)
            assert.ok(stored, `user ${u._id}`)
            assert.equal(stored.email, u.email)
            assert.equal(stored.emailKey, emailKeyOf(u.email))
            assert.equal(stored.fullName, u.fullName)
            assert.equal(stored.createdOn, u.createdOn ? u.createdOn.toISOString() : idTime(u._id))
            assert.match(stored.passwordHash, /^\$argon2id\$/)
            assert.equal(await defaultPasswordHasher.verify(stored.passwordHash, u.password), true)
          }
          for (const n of notes) {
            const stored = await store.findNote(n.userId, n._id)
            const createdOn = n.createdOn!.toISOString()
            assert.deepEqual(stored, {
              _id: n._id,
              ...emptyInput(), // the fields the original's documents do not have
              title: n.title,
              content: n.content,
              tags: n.tags ?? [],
              isPinned: n.isPinned ?? false,
              userId: n.userId,
              createdOn,
              updatedOn: createdOn,
            })
          }
        } finally {
          await store.close()
        }
      })
    }
  }

  it('keeps a password that already is an argon2id hash, and accepts userId as an ObjectId', async () => {
    const hash = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g'
    const id = new ObjectId().toHexString()
    const noteId = new ObjectId().toHexString()
    const store = memoryStore()
    try {
      const { summary } = await runImport(store, {
        users: dir.file(
          'hashed.json',
          `${userDocument({ _id: id, fullName: 'H', email: `h.${id}@example.com`, password: hash }, 'relaxed')}\n`,
        ),
        notes: dir.file(
          'oid-user.json',
          `{"_id":{"$oid":"${noteId}"},"title":"t","content":"c","userId":{"$oid":"${id}"}}\n`,
        ),
      })
      assert.equal(summary.users.imported, 1)
      assert.equal((await store.findUserById(id))?.passwordHash, hash)
      assert.equal((await store.findNote(id, noteId))?.userId, id)
    } finally {
      await store.close()
    }
  })
})

describe('import: idempotence and round trips', () => {
  it('changes nothing when run twice, and does no hashing the second time', async () => {
    const { users, notes } = sampleData()
    const files = {
      users: dir.file('twice-u.json', usersFile(users, 'relaxed', 'lines')),
      notes: dir.file('twice-n.json', notesFile(notes, 'relaxed', 'lines')),
    }
    const store = memoryStore()
    try {
      await runImport(store, files)
      const first = await exportTexts(store, dir, 'twice-1')
      // Count the users handed to the store for writing: only those are ever hashed.
      let usersWritten = 0
      const counting = new Proxy(store, {
        get(target, key, receiver) {
          if (key === 'importUsers')
            return (users: unknown[]) => ((usersWritten += users.length), target.importUsers(users as never))
          return Reflect.get(target, key, receiver) as unknown
        },
      })
      const again = await runImport(counting, files)
      assert.equal(usersWritten, 0, 'known users are skipped before hashing')
      assert.deepEqual(
        { ...again.summary.users, rejectedBy: again.summary.users.rejectedBy },
        { read: 3, imported: 0, skipped: 3, rejected: 0, rejectedBy: {} },
      )
      assert.deepEqual({ ...again.summary.notes }, { read: 4, imported: 0, skipped: 4, rejected: 0, rejectedBy: {} })
      assert.deepEqual(await exportTexts(store, dir, 'twice-2'), first)
    } finally {
      await store.close()
    }
  })

  for (const [mode, format] of [
    ['relaxed', 'lines'],
    ['canonical', 'array'],
  ] as const) {
    it(`round-trips exactly: import, export (${mode}, ${format}), import, export`, async () => {
      const { users, notes } = sampleData()
      const a = memoryStore()
      const b = memoryStore()
      try {
        await runImport(a, {
          users: dir.file(`rt-u-${mode}.json`, usersFile(users, mode, 'lines')),
          notes: dir.file(`rt-n-${mode}.json`, notesFile(notes, mode, 'lines')),
        })
        const first = await exportTexts(a, dir, `rt-a-${mode}`, { mode, format })
        const again = await runImport(b, {
          users: dir.file(`rt-a-${mode}-users.json`),
          notes: dir.file(`rt-a-${mode}-notes.json`),
        })
        assert.equal(again.summary.users.imported, 3, again.output)
        assert.equal(again.summary.notes.imported, 4, again.output)
        const second = await exportTexts(b, dir, `rt-b-${mode}`, { mode, format })
        assert.deepEqual(second, first)
        for (const u of users) assert.deepEqual(await b.findUserById(u._id), await a.findUserById(u._id))
        for (const n of notes) assert.deepEqual(await b.findNote(n.userId, n._id), await a.findNote(n.userId, n._id))
        if (format === 'array') assert.match(first.notes, /^\[\{"_id":\{"\$oid":"[0-9a-f]{24}"\}/)
        if (mode === 'canonical') assert.match(first.notes, /"createdOn":\{"\$date":\{"\$numberLong":"\d+"\}\}/)
      } finally {
        await a.close()
        await b.close()
      }
    })
  }
})

describe('import: records it cannot take', () => {
  it('reports malformed records with their line and skips them', async () => {
    const { users, notes } = sampleData()
    const [ada, bob] = users as [(typeof users)[0], (typeof users)[0]]
    const usersText = [
      userDocument(ada, 'relaxed'),
      '{"_id":{"$oid":"not-an-id"},"fullName":"X","email":"x@example.com","password":"p"}',
      '{"_id":{"$oid":"65a1b2c3d4e5f60718293a4b"},"fullName":"No email","password":"p"}',
      '{"truncated": ',
      '',
      '[1, 2]',
      userDocument(bob, 'relaxed'),
    ].join('\n')
    const goodNote = notes[0]!
    const notesText = [
      '{"_id":{"$oid":"65a1b2c3d4e5f60718293c01"},"title":"t","content":"c","tags":"home","userId":"' + ada._id + '"}',
      '{"_id":{"$oid":"65a1b2c3d4e5f60718293c02"},"title":"t","content":"c","isPinned":"yes","userId":"' +
        ada._id +
        '"}',
      '{"_id":{"$oid":"65a1b2c3d4e5f60718293c03"},"title":"t","content":"c","userId":"' +
        ada._id +
        '","createdOn":{"$date":"yesterday"}}',
      '{"_id":{"$oid":"65a1b2c3d4e5f60718293c04"},"content":"c","userId":"' + ada._id + '"}',
      '{"_id":{"$oid":"' + goodNote._id + '"},"title":"kept","content":"c","userId":"' + ada._id + '"}',
    ].join('\n')
    const store = memoryStore()
    try {
      const { summary, output } = await runImport(store, {
        users: dir.file('bad-u.json', usersText),
        notes: dir.file('bad-n.json', notesText),
      })
      assert.deepEqual(
        { ...summary.users },
        { read: 6, imported: 2, skipped: 0, rejected: 4, rejectedBy: { malformed: 4 } },
      )
      assert.deepEqual(
        { ...summary.notes },
        { read: 5, imported: 1, skipped: 0, rejected: 4, rejectedBy: { malformed: 4 } },
      )
      assert.match(output, /bad-u\.json:2: malformed user: not valid Extended JSON: .*24 character hex/)
      assert.match(output, /bad-u\.json:3: malformed user: email is missing/)
      assert.match(output, /bad-u\.json:4: malformed user: not valid Extended JSON/)
      assert.match(output, /bad-u\.json:6: malformed user: not a JSON object/)
      assert.match(output, /bad-n\.json:1: malformed note: tags is not an array of strings/)
      assert.match(output, /bad-n\.json:2: malformed note: isPinned is not a boolean/)
      assert.match(output, /bad-n\.json:3: malformed note: createdOn is not a date/)
      assert.match(output, /bad-n\.json:4: malformed note: title is missing/)
      assert.equal((await store.findNote(ada._id, goodNote._id))?.title, 'kept')
      assert.ok(await store.findUserById(bob._id), 'the record after the bad ones is imported')
    } finally {
      await store.close()
    }
  })

  it('reports a malformed element of a JSON array by line and record, and goes on', async () => {
    const { users } = sampleData()
    const text = `[\n${userDocument(users[0]!, 'canonical')},\n{"_id": {"$oid": "65a1b2c3d4e5f60718293a4b"], "x": 1},\n${userDocument(users[1]!, 'canonical')}\n]`
    const store = memoryStore()
    try {
      const { summary, output } = await runImport(store, { users: dir.file('bad-array.json', text) })
      assert.equal(summary.users.imported, 2, output)
      assert.equal(summary.users.rejected, 1)
      assert.match(output, /bad-array\.json:3 \(record 2\): malformed user: not valid Extended JSON/)
    } finally {
      await store.close()
    }
  })

  it('reports a truncated JSON array', async () => {
    const { users } = sampleData()
    const text = `[${userDocument(users[0]!, 'relaxed')},${userDocument(users[1]!, 'relaxed').slice(0, 40)}`
    const store = memoryStore()
    try {
      const { summary, output } = await runImport(store, { users: dir.file('truncated.json', text) })
      assert.equal(summary.users.imported, 1)
      assert.match(output, /truncated\.json:1 \(record 2\): malformed user: the file ends inside a record/)
    } finally {
      await store.close()
    }
  })

  it('reports duplicate emails (case-insensitively), in the file and against existing accounts, keeping the first', async () => {
    const { users } = sampleData()
    const first = users[0]!
    const existing = users[1]!
    const sameEmailOtherCase = { ...users[2]!, email: ` ${first.email.toUpperCase()} ` }
    const fourth = {
      _id: new ObjectId().toHexString(),
      fullName: 'Again',
      email: existing.email.toLowerCase(),
      password: 'p',
    }
    const store = memoryStore()
    try {
      // An account registered on notes-service before the import, with another id.
      await store.createUser({
        _id: new ObjectId().toHexString(),
        fullName: 'Here first',
        email: existing.email,
        emailKey: emailKeyOf(existing.email),
        passwordHash: '$argon2id$x',
        createdOn: new Date().toISOString(),
      })
      const text = [first, sameEmailOtherCase, fourth].map((u) => userDocument(u, 'relaxed')).join('\n')
      const { summary, output } = await runImport(store, { users: dir.file('dupes.json', text) })
      assert.deepEqual(
        { ...summary.users },
        { read: 3, imported: 1, skipped: 0, rejected: 2, rejectedBy: { 'duplicate email': 2 } },
      )
      assert.match(
        output,
        new RegExp(`dupes\\.json:2: duplicate email "${first.email.toUpperCase().replace(/\./g, '\\.')}"`),
      )
      assert.match(output, /dupes\.json:3: duplicate email/)
      assert.equal(await store.findUserById(sameEmailOtherCase._id), undefined)
      assert.equal((await store.findUserByEmailKey(emailKeyOf(first.email)))?._id, first._id)
    } finally {
      await store.close()
    }
  })

  it('reports notes whose user does not exist', async () => {
    const { notes } = sampleData()
    const store = memoryStore()
    try {
      const { summary, output } = await runImport(store, {
        notes: dir.file('orphans.json', notesFile(notes.slice(0, 2), 'relaxed', 'lines')),
      })
      assert.deepEqual(
        { ...summary.notes },
        { read: 2, imported: 0, skipped: 0, rejected: 2, rejectedBy: { 'missing user': 2 } },
      )
      assert.match(
        output,
        new RegExp(`orphans\\.json:1: note ${notes[0]!._id}: its user ${notes[0]!.userId} does not exist`),
      )
    } finally {
      await store.close()
    }
  })

  it('names a record whose _id is taken by a different one (in the file or stored before), and skips the same one quietly', async () => {
    const { users } = sampleData()
    const ada = users[0]!
    const hash = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g'
    const noteId = new ObjectId().toHexString()
    const note = (title: string, tags = '["a"]') =>
      `{"_id":{"$oid":"${noteId}"},"title":${JSON.stringify(title)},"content":"c","tags":${tags},"userId":"${ada._id}","createdOn":{"$date":"2024-01-01T00:00:00Z"}}`
    const usersText = [
      userDocument(ada, 'relaxed'),
      userDocument(ada, 'relaxed'), // the same again: a quiet skip
      userDocument({ ...ada, fullName: 'Someone else' }, 'relaxed'),
      userDocument({ ...ada, password: 'another plain password' }, 'relaxed'), // plain text is not compared
    ].join('\n')
    const notesText = [note('t'), note('t'), note('other', '["b"]'), note('t')].join('\n')
    const store = memoryStore()
    try {
      const usersFile = dir.file('same-id-u.json', usersText)
      const notesFile = dir.file('same-id-n.json', notesText)
      for (const batchSize of [1, 500]) {
        const fresh = batchSize === 1 ? store : memoryStore()
        try {
          const { summary, output } = await runImport(fresh, { users: usersFile, notes: notesFile }, { batchSize })
          assert.deepEqual(
            { ...summary.users },
            { read: 4, imported: 1, skipped: 2, rejected: 1, rejectedBy: { 'conflicting _id': 1 } },
            output,
          )
          assert.deepEqual(
            { ...summary.notes },
            { read: 4, imported: 1, skipped: 2, rejected: 1, rejectedBy: { 'conflicting _id': 1 } },
            output,
          )
          assert.ok(
            output.includes(
              `same-id-u.json:3: user ${ada._id}: a different user with this _id is already stored or earlier in the file (it differs in fullName); this record is not imported`,
            ),
            output,
          )
          assert.ok(
            output.includes(
              `same-id-n.json:3: note ${noteId}: a different note with this _id is already stored or earlier in the file (it differs in title, tags); this record is not imported`,
            ),
            output,
          )
          assert.equal((await fresh.findNote(ada._id, noteId))?.title, 't', 'the first record is kept')
        } finally {
          if (fresh !== store) await fresh.close()
        }
      }
      // Stored by an earlier run: looked up before hashing; a different hash in the file differs.
      const again = await runImport(store, {
        users: dir.file(
          'same-id-u2.json',
          [
            userDocument({ ...ada, email: ` ${ada.email} ` }, 'relaxed'),
            userDocument({ ...ada, password: hash }, 'relaxed'),
          ].join('\n'),
        ),
        notes: dir.file('same-id-n2.json', note('t', '["a","b"]')),
      })
      assert.deepEqual(
        { ...again.summary.users },
        { read: 2, imported: 0, skipped: 1, rejected: 1, rejectedBy: { 'conflicting _id': 1 } },
        again.output,
      )
      assert.match(again.output, /same-id-u2\.json:2: user [0-9a-f]{24}: .*differs in password\)/)
      assert.match(again.output, /same-id-n2\.json:1: note [0-9a-f]{24}: .*differs in tags\)/)
    } finally {
      await store.close()
    }
  })

  it('rejects text with an unpaired surrogate, naming the record and the field', async () => {
    const { users } = sampleData()
    const ada = users[0]!
    const usersText = [
      userDocument({ ...ada, fullName: 'Ada \ud800' }, 'relaxed'),
      userDocument({ ...ada, email: 'ada\udc00@example.com' }, 'relaxed'),
      userDocument({ ...ada, password: '\ud83d' }, 'relaxed'),
      userDocument({ ...ada, fullName: 'Ada \ud83d\ude00' }, 'relaxed'), // a pair: fine
    ].join('\n')
    const noteLine = (fields: string) =>
      `{"_id":{"$oid":"${new ObjectId().toHexString()}"},${fields},"userId":"${ada._id}"}`
    const notesText = [
      noteLine('"title":"x\\ud800y","content":"c"'),
      noteLine('"title":"t","content":"\\udfff","tags":["\\ud800"]'),
      noteLine('"title":"t","content":"c","tags":["ok","\\ud800"]'),
    ].join('\n')
    const store = memoryStore()
    try {
      const { summary, output } = await runImport(store, {
        users: dir.file('lone-u.json', usersText),
        notes: dir.file('lone-n.json', notesText),
      })
      assert.deepEqual(
        { ...summary.users },
        { read: 4, imported: 1, skipped: 0, rejected: 3, rejectedBy: { malformed: 3 } },
        output,
      )
      assert.deepEqual(
        { ...summary.notes },
        { read: 3, imported: 0, skipped: 0, rejected: 3, rejectedBy: { malformed: 3 } },
        output,
      )
      const message = (field: string) =>
        `malformed user: ${field} must be valid Unicode text: it contains an unpaired surrogate`
      assert.ok(output.includes(`lone-u.json:1: ${message('fullName')}`), output)
      assert.ok(output.includes(`lone-u.json:2: ${message('email')}`), output)
      assert.ok(output.includes(`lone-u.json:3: ${message('password')}`), output)
      assert.ok(output.includes('lone-n.json:1: malformed note: title must be valid Unicode text'), output)
      assert.ok(output.includes('lone-n.json:2: malformed note: content must be valid Unicode text'), output)
      assert.ok(output.includes('lone-n.json:3: malformed note: tags must be valid Unicode text'), output)
      assert.equal((await store.findUserById(ada._id))?.fullName, 'Ada \ud83d\ude00')
    } finally {
      await store.close()
    }
  })

  it('--strict stops at the first malformed record; what came before it is imported', async () => {
    const { users } = sampleData()
    const text = [userDocument(users[0]!, 'relaxed'), '{oops', userDocument(users[1]!, 'relaxed')].join('\n')
    const store = memoryStore()
    try {
      await assert.rejects(
        runImport(store, { users: dir.file('strict.json', text) }, { strict: true }),
        (err: unknown) => {
          assert.ok(err instanceof StrictStop)
          assert.match(err.message, /strict\.json:2: malformed user/)
          return true
        },
      )
      assert.ok(await store.findUserById(users[0]!._id))
      assert.equal(await store.findUserById(users[1]!._id), undefined)
    } finally {
      await store.close()
    }
  })
})
