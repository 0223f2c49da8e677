// Everything stored in a SQLite database (triggers, views, generated columns) is SQL that SQLite
// 3.40 understands, so an operator's sqlite3 shell (Debian 12 has 3.40.1) can change the data
// and the triggers still do their work. The measure migration 12 gives the usage triggers equals
// octet_length's, which they used before; migration 12 keeps every trigger; and, when a sqlite3
// shell is installed, it deletes a note and an account made by the service.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import fc from 'fast-check'
import { SQLITE_FILE, migrateSqlite, openSqliteDatabase, openSqliteStore } from '../src/store/sqlite/index.js'
import { migrations } from '../src/store/sqlite/migrations.js'
import { makeNote, makeUser } from './support/store-contract.js'
import { tempDir } from './support/temp.js'

/** Functions stored SQL must not call: each is newer than SQLite 3.40 (the version that added it). */
const NEWER_THAN_3_40: Record<string, string> = {
  octet_length: '3.43',
  concat: '3.44',
  concat_ws: '3.44',
  string_agg: '3.44',
  timediff: '3.43',
  unistr: '3.50',
  unistr_quote: '3.50',
  if: '3.48',
  json_pretty: '3.46',
  jsonb: '3.45',
  median: '3.51',
  percentile: '3.51',
}

/** The system sqlite3 shell, or undefined when none is installed. */
function sqliteShell(): string | undefined {
  if (existsSync('/usr/bin/sqlite3')) return '/usr/bin/sqlite3'
  try {
    return execFileSync('sh', ['-c', 'command -v sqlite3'], { encoding: 'utf8' }).trim() || undefined
  } catch {
    return undefined
  }
}

describe('SQLite 3.40 understands what the database stores', () => {
  it('length(CAST(x AS BLOB)) is octet_length(x) for any text, NUL, emoji and empty included, and for numbers', () => {
    const db = new Database(':memory:')
    const both = db.prepare<[unknown], { octets: number; blob: number }>(
      'SELECT octet_length(x) AS octets, length(CAST(x AS BLOB)) AS blob FROM (SELECT ? AS x)',
    )
    const tags = db.prepare<[string], { octets: number; blob: number }>(
      'SELECT coalesce(sum(octet_length(value)), 0) AS octets, coalesce(sum(length(CAST(value AS BLOB))), 0) AS blob FROM json_each(?)',
    )
    for (const fixed of ['', '\u0000', 'a\u0000b', '🎉', 'é', '\uffff', '\ud800']) {
      const { octets, blob } = both.get(fixed)!
      assert.equal(blob, octets, JSON.stringify(fixed))
    }
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.oneof(fc.string({ unit: 'binary' }), fc.integer(), fc.double({ noNaN: true })),
        (text, value) => {
          const a = both.get(text)!
          assert.equal(a.blob, a.octets)
          assert.equal(a.octets, Buffer.byteLength(text))
          const b = both.get(value)!
          assert.equal(b.blob, b.octets)
          const t = tags.get(JSON.stringify([text, text.slice(1), '']))!
          assert.equal(t.blob, t.octets)
        },
      ),
      { numRuns: 500 },
    )
    db.close()
  })

  it('migration 12 keeps every trigger, and the usage it keeps is the usage counted afresh', () => {
    const db = openSqliteDatabase({ dataDir: ':memory:' })
    migrateSqlite(
      db,
      migrations.filter((m) => m.version < 12),
    )
    const triggers = db.prepare("SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
    const before = triggers.all()
    assert.ok(before.length >= 13)
    assert.equal(
      migrateSqlite(
        db,
        migrations.filter((m) => m.version <= 12),
      ),
      1,
    )
    assert.deepEqual(triggers.all(), before)
    const user = makeUser()
    db.prepare(
      'INSERT INTO users (id, full_name, email, email_key, password_hash, created_on) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(user._id, user.fullName, user.email, user.emailKey, user.passwordHash, user.createdOn)
    const insert = db.prepare(
      'INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on) VALUES (?, ?, ?, ?, ?, 0, ?, ?)',
    )
    const texts = ['', 'plain', 'nul \u0000 inside', '🎉 émoji', '\u2028\uffff']
    texts.forEach((t, i) =>
      insert.run(`n${i}`, user._id, t, t + t, JSON.stringify([t, 'x']), user.createdOn, user.createdOn),
    )
    db.prepare("UPDATE notes SET content = 'shorter' WHERE id = 'n3'").run()
    db.prepare("DELETE FROM notes WHERE id = 'n1'").run()
    const counted = db
      .prepare(
        `SELECT count(*) AS notes, coalesce(sum(octet_length(title) + octet_length(content)
           + (SELECT coalesce(sum(octet_length(value)), 0) FROM json_each(tags))), 0) AS bytes FROM notes`,
      )
      .get()
    assert.deepEqual(db.prepare('SELECT notes, bytes FROM account_usage WHERE user_id = ?').get(user._id), counted)
    db.close()
  })

  it('no stored SQL calls a function newer than SQLite 3.40', () => {
    const db = openSqliteDatabase({ dataDir: ':memory:' })
    migrateSqlite(db)
    for (const { name, sql } of db
      .prepare<[], { name: string; sql: string }>('SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL')
      .all()) {
      const code = sql.replace(/--[^\n]*/g, '').replace(/'(?:[^']|'')*'/g, "''")
      for (const [fn, since] of Object.entries(NEWER_THAN_3_40)) {
        assert.doesNotMatch(
          code,
          new RegExp(`\\b${fn}\\s*\\(`, 'i'),
          `${name} calls ${fn}(), which SQLite has only since ${since}`,
        )
      }
    }
    db.close()
  })

  const shell = sqliteShell()
  it(
    'the sqlite3 shell deletes a note, then an account, and the triggers keep usage and versions',
    { skip: shell === undefined && 'no sqlite3 shell installed (/usr/bin/sqlite3 or sqlite3 on PATH)' },
    async () => {
      const dir = tempDir()
      after(() => dir.remove())
      const store = openSqliteStore({ dataDir: dir.path })
      const user = makeUser()
      const other = makeUser()
      await store.createUser(user, {
        _id: 'session-1',
        userId: user._id,
        createdOn: user.createdOn,
        lastUsedOn: user.createdOn,
        client: 'test',
      })
      await store.createUser(other)
      const notes = [
        makeNote(user._id, { title: 'one 🎉', content: 'a\u0000b', tags: ['x', 'é'] }),
        makeNote(user._id, { title: 'two' }),
      ]
      for (const n of notes) await store.insertNote(n)
      await store.insertNote(makeNote(other._id))
      await store.close()

      const file = join(dir.path, SQLITE_FILE)
      const run = (sql: string) => execFileSync(shell!, [file, sql], { encoding: 'utf8' })
      const read = () => {
        const db = new Database(file, { readonly: true })
        try {
          return {
            usage: db.prepare('SELECT user_id, notes, bytes FROM account_usage ORDER BY user_id').all() as Array<{
              user_id: string
              notes: number
              bytes: number
            }>,
            versions: db.prepare('SELECT user_id, notes, account FROM user_versions ORDER BY user_id').all() as Array<{
              user_id: string
              notes: number
              account: number
            }>,
            clock: db.prepare('SELECT now FROM version_clock').pluck().get() as number,
          }
        } finally {
          db.close()
        }
      }
      const before = read()
      const mine = (r: ReturnType<typeof read>) => r.usage.find((u) => u.user_id === user._id)
      const theirs = (r: ReturnType<typeof read>) => r.usage.find((u) => u.user_id === other._id)

      run(`DELETE FROM notes WHERE id = '${notes[0]!._id}'`)
      const afterNote = read()
      const size =
        Buffer.byteLength('one 🎉') + Buffer.byteLength('a\u0000b') + Buffer.byteLength('x') + Buffer.byteLength('é')
      assert.deepEqual(mine(afterNote), { user_id: user._id, notes: 1, bytes: mine(before)!.bytes - size })
      assert.deepEqual(theirs(afterNote), theirs(before))
      assert.ok(afterNote.clock > before.clock, 'the version clock moved')
      const versionOf = (r: ReturnType<typeof read>) => r.versions.find((v) => v.user_id === user._id)
      assert.ok(versionOf(afterNote)!.notes > versionOf(before)!.notes, "the account's notes version moved")

      // As the service does, with foreign keys on: the account's sessions and usage rows go with it.
      run(
        `PRAGMA foreign_keys = ON; DELETE FROM notes WHERE user_id = '${user._id}'; DELETE FROM users WHERE id = '${user._id}'`,
      )
      const afterUser = read()
      assert.equal(mine(afterUser), undefined, "the account's usage row went with it")
      assert.equal(versionOf(afterUser), undefined, "the account's versions went with it")
      assert.ok(afterUser.clock > afterNote.clock, 'the version clock moved')
      assert.deepEqual(theirs(afterUser), theirs(before))
      assert.equal(run(`SELECT count(*) FROM sessions WHERE user_id = '${user._id}'`).trim(), '0')

      const reopened = openSqliteStore({ dataDir: dir.path })
      assert.equal(await reopened.findUserById(user._id), undefined)
      assert.deepEqual(await reopened.noteUsage(other._id), { notes: 1, bytes: theirs(before)!.bytes })
      await reopened.close()
    },
  )
})
