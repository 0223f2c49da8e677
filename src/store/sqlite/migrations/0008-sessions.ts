// Each token from /login or /create-account names a row here (docs/accounts.md): ending a session
// deletes its row, and every request looks it up by primary key, so every process sees the end
// at its next request. tokens_not_before bounds the tokens issued before sessions existed, which
// name none.
import type { SqliteMigration as Migration } from '../../migrations.js'

export const migration: Migration = {
  version: 8,
  name: 'sessions',
  sql: `
      CREATE TABLE sessions (
        id           TEXT PRIMARY KEY,
        user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_on   TEXT NOT NULL,
        last_used_on TEXT NOT NULL,
        client       TEXT NOT NULL
      ) STRICT, WITHOUT ROWID;

      CREATE INDEX sessions_by_user ON sessions (user_id, last_used_on DESC, created_on DESC, id DESC);

      ALTER TABLE users ADD COLUMN tokens_not_before TEXT;
    `,
}
