// What a migration adding a note field calls after adding its column: the stored JSON made again from
// every column (../note-columns.ts). SQLite cannot change a stored generated column, so the table is
// copied (https://www.sqlite.org/lang_altertable.html#otheralter), its indexes and triggers made again.
import type { Database } from 'better-sqlite3'
import { columnsPresent } from '../note-columns.js'
import { noteJsonExpression } from './rows.js'

const STORED_JSON = /json\s+TEXT NOT NULL GENERATED ALWAYS AS \([\s\S]*\) STORED/

export function rebuildNoteJson(db: Database): void {
  const schema = db.prepare<[], string>("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'notes'").pluck()
  const dependents = db
    .prepare<[], string>(
      "SELECT sql FROM sqlite_schema WHERE tbl_name = 'notes' AND type IN ('index', 'trigger') AND sql IS NOT NULL",
    )
    .pluck()
    .all()
  const columns = db.prepare<[], string>("SELECT name FROM pragma_table_xinfo('notes') WHERE hidden = 0").pluck().all()
  const json = `json TEXT NOT NULL GENERATED ALWAYS AS (${noteJsonExpression(columnsPresent(columns))}) STORED`
  const table = schema.get()
  if (!table || !STORED_JSON.test(table)) throw new Error('notes has no stored json column to rebuild')
  db.exec(table.replace(/^CREATE TABLE "?notes"?/, 'CREATE TABLE notes_rebuilt').replace(STORED_JSON, json))
  db.exec(`INSERT INTO notes_rebuilt (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM notes`)
  db.exec('DROP TABLE notes')
  db.exec('ALTER TABLE notes_rebuilt RENAME TO notes')
  for (const sql of dependents) db.exec(sql)
}
