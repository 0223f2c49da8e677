// Each token from /login or /create-account names a row here (docs/accounts.md), looked up by
// every request, so an ended session is seen by every instance at once. tokens_not_before bounds
// the tokens issued before sessions existed (NULL until moved); a column without a default is
// added without rewriting the table.
import type { PostgresMigration as Migration } from '../../migrations.js'

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
