// What only the SQLite driver has: numbered migrations on the database file (fresh, re-run, and
// an upgrade that keeps what release 1 wrote).
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { migrateSqlite, openSqliteDatabase, openSqliteStore } from '../src/store/sqlite/index.js'
import { migrations } from '../src/store/sqlite/migrations.js'
import { makeNote, makeUser } from './support/store-contract.js'
import { tempDir } from './support/temp.js'

describe('sqlite migrations', () => {
  const dir = tempDir()
  after(() => dir.remove())
  let n = 0
  const freshDir = () => `${dir.path}/db${n++}`

  it('applies every migration once and records each version', () => {
    const db = openSqliteDatabase({ dataDir: freshDir() })
    assert.equal(migrateSqlite(db), migrations.length)
    assert.equal(migrateSqlite(db), 0)
    const numbers = db.prepare('SELECT number FROM schema_changes ORDER BY number').pluck().all()
    assert.deepEqual(
      numbers,
      migrations.map((m) => m.version),
    )
    // And, for the builds before the shared numbers, the changes they had under their numbers.
    const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all()
    assert.deepEqual(versions, [1, 2, 3, 4, 7, 8, 9])
    db.close()
  })

  it('gives notes written before migration 2 their stored JSON, the bytes JSON.stringify writes', async () => {
    const dataDir = freshDir()
    const db = openSqliteDatabase({ dataDir })
    assert.equal(migrateSqlite(db, migrations.slice(0, 1)), 1)
    const user = makeUser()
    const texts = ['plain', 'odd "q" \\ \u0000 \u001f \u007f \uffff \u2028 🎉 </script>']
    const notes = texts.map((text, i) =>
      makeNote(user._id, {
        title: text,
        content: text,
        tags: i ? [text, ''] : [],
        isPinned: i === 0,
        createdOn: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
      }),
    )
    // Written as release 1 wrote them (opening a store would apply every migration first).
    db.prepare('INSERT INTO users VALUES (?, ?, ?, ?, ?, ?)').run(
      user._id,
      user.fullName,
      user.email,
      user.emailKey,
      user.passwordHash,
      user.createdOn,
    )
    for (const note of notes) {
      db.prepare('INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
        note._id,
        note.userId,
        note.title,
        note.content,
        JSON.stringify(note.tags),
        note.isPinned ? 1 : 0,
        note.createdOn,
        note.updatedOn,
      )
    }
    assert.equal(migrateSqlite(db), migrations.length - 1)
    // The rebuilt table keeps the list-order index that every per-user query relies on.
    const plan = db
      .prepare(
        "EXPLAIN QUERY PLAN SELECT json FROM notes WHERE user_id = 'u' ORDER BY is_pinned DESC, created_on DESC, id DESC",
      )
      .all()
    assert.match(JSON.stringify(plan), /USING INDEX notes_by_user_in_list_order/)
    db.close()
    const store = openSqliteStore({ dataDir })
    // Pinned first, then newest first: the note list order of the contract.
    assert.equal((await store.listNotesJson(user._id)).toString(), JSON.stringify([notes[0], notes[1]]))
    assert.deepEqual(await store.findNote(user._id, notes[1]!._id), notes[1])
    await store.close()
  })
})
