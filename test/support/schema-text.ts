// The schema of a database as normalised, readable text: what docs/schema/sqlite.sql and
// docs/schema/postgresql.sql hold, and what test/schema-snapshot.test.ts and the upgrade tests
// compare. Objects are sorted by kind and name; nothing depends on the order they were made in.
import type { Database } from 'better-sqlite3'
import type pg from 'pg'

const HEADER = (dialect: string) =>
  `-- The schema of a fresh ${dialect} database after every migration, as test/support/schema-text.ts\n` +
  '-- writes it. Not run by anything: written by\n' +
  '--   UPDATE_SCHEMA_SNAPSHOT=1 node --import tsx --test test/schema-snapshot.test.ts\n' +
  '-- and checked by the same test without the variable.\n'

/** Lines of a stored definition without the indentation of the source it came from. */
function dedent(text: string): string {
  const lines = text
    .replace(/\s+$/, '')
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
  const rest = lines.slice(1).filter((l) => l.trim() !== '')
  const indent = Math.min(...rest.map((l) => /^ */.exec(l)![0].length), Infinity)
  return [lines[0]!.trim(), ...lines.slice(1).map((l) => l.slice(Number.isFinite(indent) ? indent : 0))].join('\n')
}

/** SQLite: every table, index, trigger and view of sqlite_master, by kind and name. */
export function sqliteSchemaText(db: Database): string {
  const rows = db
    .prepare<[], { type: string; name: string; sql: string | null }>(
      "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name",
    )
    .all()
  return (
    HEADER('SQLite') +
    rows.map((r) => `\n-- ${r.type} ${r.name}\n${r.sql === null ? '' : `${dedent(r.sql)};\n`}`).join('')
  )
}

/** PostgreSQL: the public schema's tables, columns, constraints, indexes, sequences, triggers and functions. */
export async function postgresSchemaText(client: pg.ClientBase): Promise<string> {
  // Sorted here, by code unit, rather than by the database's collation.
  const q = async (sql: string) =>
    (await client.query<{ name: string; text: string }>(sql)).rows.sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )
  const sections: Array<[string, Array<{ name: string; text: string }>]> = [
    [
      'table',
      await q(`
        SELECT c.relname AS name, string_agg(
          format('  %I %s%s%s%s%s', a.attname, format_type(a.atttypid, a.atttypmod),
            CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation THEN ' COLLATE ' || quote_ident(co.collname) ELSE '' END,
            CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END,
            CASE WHEN a.attgenerated = 's' THEN ' GENERATED ALWAYS AS (' || pg_get_expr(d.adbin, d.adrelid) || ') STORED'
                 WHEN d.adbin IS NOT NULL THEN ' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid) ELSE '' END,
            ''), E',\n' ORDER BY a.attnum) AS text
        FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
        JOIN pg_type t ON t.oid = a.atttypid
        LEFT JOIN pg_collation co ON co.oid = a.attcollation
        LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
        WHERE c.relkind = 'r'
        GROUP BY c.relname`),
    ],
    [
      'constraint',
      await q(`
        SELECT cl.relname || '.' || c.conname AS name, pg_get_constraintdef(c.oid) AS text
        FROM pg_constraint c JOIN pg_class cl ON cl.oid = c.conrelid
        JOIN pg_namespace n ON n.oid = cl.relnamespace AND n.nspname = 'public'
       `),
    ],
    [
      'index',
      await q(`
        SELECT indexname AS name, indexdef AS text FROM pg_indexes WHERE schemaname = 'public'
       `),
    ],
    [
      'sequence',
      await q(`
        SELECT sequencename AS name, format('%s start %s increment %s', data_type, start_value, increment_by) AS text
        FROM pg_sequences WHERE schemaname = 'public'`),
    ],
    [
      'trigger',
      await q(`
        SELECT cl.relname || '.' || t.tgname AS name, pg_get_triggerdef(t.oid) AS text
        FROM pg_trigger t JOIN pg_class cl ON cl.oid = t.tgrelid
        JOIN pg_namespace n ON n.oid = cl.relnamespace AND n.nspname = 'public'
        WHERE NOT t.tgisinternal`),
    ],
    [
      'function',
      await q(`
        SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS name, pg_get_functiondef(p.oid) AS text
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace AND n.nspname = 'public'
       `),
    ],
  ]
  let out = HEADER('PostgreSQL')
  for (const [kind, rows] of sections) {
    for (const r of rows) out += `\n-- ${kind} ${r.name}\n${kind === 'table' ? `(\n${r.text}\n)` : dedent(r.text)}\n`
  }
  return out
}
