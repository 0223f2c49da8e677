// Each token from /login or /create-account names a row here (docs/accounts.md): ending a
// session deletes its row, and every request looks its session up by primary key, so the end
// is seen by every instance at its next request (as SQLite's side of this change). An account's
// sessions go with it (ON DELETE CASCADE). last_used_on is written at most every few minutes
// per session (services/sessions.ts). sessions_by_user serves the per-account listing,
// pruning and ending. tokens_not_before bounds the tokens issued before sessions existed,
// which name none: NULL until logout-everywhere, change-password or an operator moves it.
// Adding a column without a default changes no row: instant on a large table.
import type { Migration } from '../migrations.js'

export const migration: Migration = {
  version: 8,
  name: 'sessions',
  sql: `
      CREATE TABLE sessions (
        id           text COLLATE "C" PRIMARY KEY,
        user_id      text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_on   text COLLATE "C" NOT NULL,
        last_used_on text COLLATE "C" NOT NULL,
        client       text NOT NULL
      );

      CREATE INDEX sessions_by_user ON sessions (user_id, last_used_on DESC, created_on DESC, id DESC);

      ALTER TABLE users ADD COLUMN tokens_not_before text COLLATE "C";
    `,
}
