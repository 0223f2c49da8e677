// Numbered schema migrations for the SQLite driver. Each runs once, in order, inside a
// transaction, and is recorded in schema_migrations. Never edit a released migration: add one.
import type { Database } from 'better-sqlite3'
import { wellFormedText } from './migration-text.js'

export interface Migration {
  version: number
  name: string
  /** Run first. */
  sql?: string
  /** What SQL cannot do (Unicode normalisation, say), run after `sql` in the same transaction. */
  run?: (db: Database) => void
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'init',
    sql: `
      CREATE TABLE users (
        id            TEXT PRIMARY KEY,
        full_name     TEXT NOT NULL,
        email         TEXT NOT NULL,
        -- trimmed, lower-cased email: the unique key for duplicates and login (decisions.md)
        email_key     TEXT NOT NULL UNIQUE,
        password_hash TEXT NOT NULL,
        created_on    TEXT NOT NULL
      ) STRICT;

      CREATE TABLE notes (
        id         TEXT PRIMARY KEY,
        user_id    TEXT NOT NULL REFERENCES users(id),
        title      TEXT NOT NULL,
        content    TEXT NOT NULL,
        tags       TEXT NOT NULL, -- JSON array of strings
        is_pinned  INTEGER NOT NULL DEFAULT 0,
        created_on TEXT NOT NULL,
        updated_on TEXT NOT NULL
      ) STRICT;

      -- Serves every per-user query in list order, so one user's listing never scans
      -- other users' notes.
      CREATE INDEX notes_by_user_in_list_order
        ON notes (user_id, is_pinned DESC, created_on DESC, id DESC);
    `,
  },
  {
    version: 2,
    name: 'note-json',
    // Each note keeps its JSON text (the wire shape, keys in NoteRecord's order), computed by
    // SQLite whenever the row is written, with the expression listings used to build on every
    // read: the bytes sent are the same as before. A listing then joins stored text instead of
    // escaping every field of every note on every read: 20 notes, 22 µs built per read against
    // 7 µs joined (README, "What the profiles showed"). SQLite cannot add a STORED column to a
    // table, so the table is rebuilt (https://www.sqlite.org/lang_altertable.html#otheralter):
    // once, inside the migration's transaction; a large database takes a while to migrate. The
    // columns are written out again rather than shared with migration 1: a released migration's
    // text must never change, which a shared constant would allow.
    sql: `
      CREATE TABLE notes_with_json (
        id         TEXT PRIMARY KEY,
        user_id    TEXT NOT NULL REFERENCES users(id),
        title      TEXT NOT NULL,
        content    TEXT NOT NULL,
        tags       TEXT NOT NULL, -- JSON array of strings
        is_pinned  INTEGER NOT NULL DEFAULT 0,
        created_on TEXT NOT NULL,
        updated_on TEXT NOT NULL,
        json       TEXT NOT NULL GENERATED ALWAYS AS (json_object('_id', id, 'title', title,
          'content', content, 'tags', json(tags),
          'isPinned', json(CASE is_pinned WHEN 1 THEN 'true' ELSE 'false' END),
          'userId', user_id, 'createdOn', created_on, 'updatedOn', updated_on)) STORED
      ) STRICT;
      INSERT INTO notes_with_json (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
        SELECT id, user_id, title, content, tags, is_pinned, created_on, updated_on FROM notes;
      DROP TABLE notes;
      ALTER TABLE notes_with_json RENAME TO notes;
      CREATE INDEX notes_by_user_in_list_order
        ON notes (user_id, is_pinned DESC, created_on DESC, id DESC);
    `,
  },
  {
    version: 4,
    name: 'well-formed-text',
    // Text stored before unpaired surrogates were refused is made valid UTF-8, and every email
    // key is recomputed with the NFKC rule; see migration-text.ts.
    run: wellFormedText,
  },
]
