// The users and their notes.
import type { SqliteMigration as Migration } from '../../migrations.js'

export const migration: Migration = {
  version: 1,
  name: 'init',
  sql: `
      CREATE TABLE users (
        id            TEXT PRIMARY KEY,
        full_name     TEXT NOT NULL,
        email         TEXT NOT NULL,
        -- trimmed, lower-cased email: the unique key for duplicates and login (docs/contract.md, "Emails")
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
}
