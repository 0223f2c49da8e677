// Each token from /login or /create-account names a row here (docs/accounts.md): ending a
// session deletes its row, and every request looks its session up by primary key, so the
// end is seen by every process at its next request. An account's sessions go with it (ON
// DELETE CASCADE). last_used_on is written at most every few minutes per session
// (services/sessions.ts). sessions_by_user serves the per-account listing, pruning and
// ending. tokens_not_before bounds the tokens issued before sessions existed, which name
// none: NULL until logout-everywhere, change-password or an operator moves it.
import type { Migration } from '../migrations.js'

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
