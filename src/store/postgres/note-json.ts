// What a migration adding a note field calls after adding its column (mirrors sqlite/note-json.ts): a new
// note_json() and generated column. PostgreSQL rewrites the table once; its triggers and indexes stay.
import type pg from 'pg'
import { type NoteColumn, columnsPresent } from '../note-columns.js'

const TYPES = { text: 'text', texts: 'text[]', flag: 'boolean' } as const
const VALUES = {
  text: (column: string) => `to_json(${column})`,
  texts: (column: string) => `array_to_json(${column})`,
  flag: (column: string) => `CASE WHEN ${column} THEN 'true' ELSE 'false' END`,
} as const

/** The JSON text JSON.stringify writes for the record, keys in the note's order, without spaces. */
const body = (columns: readonly NoteColumn[]) =>
  `${columns.map((c, i) => `'${i === 0 ? '{' : ','}"${c.field}":' || ${VALUES[c.kind](c.column)}`).join(' || ')} || '}'`

export async function replaceNoteJson(client: pg.ClientBase): Promise<void> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT column_name AS name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = 'notes' AND is_generated = 'NEVER' ORDER BY ordinal_position`,
  )
  const columns = columnsPresent(rows.map((r) => r.name))
  const names = columns.map((c) => c.column).join(', ')
  await client.query(`
    ALTER TABLE notes DROP COLUMN json;
    DROP FUNCTION note_json;
    CREATE FUNCTION note_json(${columns.map((c) => `${c.column} ${TYPES[c.kind]}`).join(', ')}) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE
      AS $$ SELECT ${body(columns)} $$;
    ALTER TABLE notes ADD COLUMN json text NOT NULL GENERATED ALWAYS AS (note_json(${names})) STORED`)
}
