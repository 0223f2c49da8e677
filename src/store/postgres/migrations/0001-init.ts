// Ids and dates are text in the "C" collation: byte order, SQLite's BINARY order, so both stores
// sort alike. Dates stay the ISO 8601 strings the services write, so they round-trip unchanged.
import type { PostgresMigration as Migration } from '../../migrations.js'

export const migration: Migration = {
  version: 1,
  name: 'init',
  sql: `
      CREATE TABLE users (
        id            text COLLATE "C" PRIMARY KEY,
        full_name     text NOT NULL,
        email         text NOT NULL,
        -- trimmed, lower-cased email: the unique key for duplicates and login (docs/contract.md, "Emails")
        email_key     text COLLATE "C" NOT NULL UNIQUE,
        password_hash text NOT NULL,
        created_on    text COLLATE "C" NOT NULL
      );

      CREATE TABLE notes (
        id         text COLLATE "C" PRIMARY KEY,
        user_id    text COLLATE "C" NOT NULL REFERENCES users(id),
        title      text NOT NULL,
        content    text NOT NULL,
        tags       text[] NOT NULL,
        is_pinned  boolean NOT NULL DEFAULT false,
        created_on text COLLATE "C" NOT NULL,
        updated_on text COLLATE "C" NOT NULL
      );

      -- Serves every per-user query in list order, so one user's listing never scans
      -- other users' notes.
      CREATE INDEX notes_by_user_in_list_order
        ON notes (user_id, is_pinned DESC, created_on DESC, id DESC);
    `,
}
