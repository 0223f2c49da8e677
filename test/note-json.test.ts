// Each note's stored JSON is made from the one list of its columns (src/store/note-columns.ts):
// for any note, on both stores, it is the text JSON.stringify writes for the record the driver
// reads back. Rebuilding it, as a migration that adds a field does, keeps every row's text, every
// index and trigger of the table, and the triggers working.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import pg from 'pg'
import { migratePostgres } from '../src/store/postgres/index.js'
import { replaceNoteJson } from '../src/store/postgres/note-json.js'
import * as pgRows from '../src/store/postgres/rows.js'
import { migrateSqlite, openSqliteDatabase } from '../src/store/sqlite/index.js'
import { rebuildNoteJson } from '../src/store/sqlite/note-json.js'
import * as sqliteRows from '../src/store/sqlite/rows.js'
import { createTestDatabase, serviceAvailable } from './support/services.js'
import { makeNote } from './support/store-contract.js'

const USER = 'a0000000000000000000000a'
const anyText = fc.string({ unit: 'binary', maxLength: 20 }).filter((s) => s.isWellFormed())
const notes = fc.uniqueArray(
  fc
    .record({
      _id: fc.stringMatching(/^[0-9a-f]{24}$/),
      title: anyText,
      content: anyText,
      tags: fc.array(anyText, { maxLength: 3 }),
      isPinned: fc.boolean(),
      createdOn: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      updatedOn: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    })
    .map((fields) => makeNote(USER, fields)),
  { selector: (n) => n._id, minLength: 1, maxLength: 8 },
)

describe('sqlite: the stored JSON', () => {
  it('is JSON.stringify of the record read back, and a rebuild keeps it, the indexes and the triggers', () => {
    fc.assert(
      fc.property(notes, (batch) => {
        const db = openSqliteDatabase({ dataDir: ':memory:' })
        migrateSqlite(db)
        db.prepare(
          "INSERT INTO users (id, full_name, email, email_key, password_hash, created_on) VALUES (?, 'A', 'a@x', 'a@x', 'h', 'now')",
        ).run(USER)
        const insert = db.prepare(`INSERT INTO notes ${sqliteRows.NOTE_INSERT}`)
        for (const note of batch) insert.run(sqliteRows.noteParams(note))
        const stored = () =>
          db
            .prepare<[], sqliteRows.NoteRow & { json: string }>(
              `SELECT ${sqliteRows.NOTE_COLUMNS}, json FROM notes ORDER BY id`,
            )
            .all()
        const dependents = () =>
          db
            .prepare(
              "SELECT type, name, sql FROM sqlite_schema WHERE tbl_name = 'notes' AND type != 'table' ORDER BY name",
            )
            .all()
        const before = stored()
        for (const row of before) assert.equal(row.json, JSON.stringify(sqliteRows.noteFromRow(row)))
        const beforeDependents = dependents()
        assert.ok(beforeDependents.length >= 7)

        db.transaction(() => rebuildNoteJson(db))()
        assert.deepEqual(stored(), before)
        assert.deepEqual(dependents(), beforeDependents)
        insert.run(sqliteRows.noteParams({ ...batch[0]!, _id: 'f'.repeat(24) }))
        assert.equal(
          db.prepare('SELECT notes FROM account_usage WHERE user_id = ?').pluck().get(USER),
          batch.length + 1,
        )
        db.close()
      }),
      { numRuns: 25 },
    )
  })
})

if (serviceAvailable('postgresql')) {
  describe('postgresql: the stored JSON', () => {
    it('is JSON.stringify of the record read back, and a rebuild keeps it, the indexes and the triggers', async () => {
      const database = await createTestDatabase()
      const client = new pg.Client({ connectionString: database.url })
      try {
        await client.connect()
        await migratePostgres(client)
        await client.query(
          "INSERT INTO users (id, full_name, email, email_key, password_hash, created_on) VALUES ($1, 'A', 'a@x', 'a@x', 'h', 'now')",
          [USER],
        )
        const stored = async () =>
          (
            await client.query<pgRows.NoteRow & { json: string }>(
              `SELECT ${pgRows.NOTE_COLUMNS}, json FROM notes ORDER BY id`,
            )
          ).rows
        const dependents = async () =>
          (
            await client.query<{ name: string }>(
              `SELECT tgname AS name FROM pg_trigger WHERE tgrelid = 'notes'::regclass AND NOT tgisinternal
             UNION ALL SELECT indexname FROM pg_indexes WHERE tablename = 'notes' ORDER BY 1`,
            )
          ).rows
        const usage = async () =>
          Number(
            (await client.query<{ n: string }>('SELECT sum(notes) AS n FROM account_usage WHERE user_id = $1', [USER]))
              .rows[0]?.n,
          )
        await fc.assert(
          fc.asyncProperty(notes, async (batch) => {
            await client.query('DELETE FROM notes')
            for (const note of batch) {
              await client.query(
                `INSERT INTO notes (${pgRows.NOTE_COLUMNS}) VALUES (${pgRows.noteInsertParams(1)})`,
                pgRows.noteValues(note),
              )
            }
            for (const row of await stored())
              assert.equal(pgRows.decodeJsonText(row.json), JSON.stringify(pgRows.noteFromRow(row)))
          }),
          { numRuns: 25 },
        )
        const before = await stored()
        const beforeDependents = await dependents()
        assert.ok(beforeDependents.length >= 2)
        const notesBefore = await usage()
        await client.query('BEGIN')
        await replaceNoteJson(client)
        await client.query('COMMIT')
        assert.deepEqual(await stored(), before)
        assert.deepEqual(await dependents(), beforeDependents)
        const note = pgRows.noteFromRow(before[0]!)
        await client.query(
          `INSERT INTO notes (${pgRows.NOTE_COLUMNS}) VALUES (${pgRows.noteInsertParams(1)})`,
          pgRows.noteValues({ ...note, _id: 'f'.repeat(24) }),
        )
        assert.equal(await usage(), notesBefore + 1)
      } finally {
        await client.end()
        await database.drop()
      }
    })
  })
}
