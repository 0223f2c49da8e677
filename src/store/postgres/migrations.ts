// Numbered schema migrations for the PostgreSQL driver (mirrors sqlite/migrations.ts). Each runs
// once, in order, inside the one transaction that holds the migration advisory lock, and is
// recorded in schema_migrations. Never edit a released migration: add one.
import type { Migration } from '../sqlite/migrations.js'

export type { Migration }

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'init',
    // Ids and dates are text in the "C" collation: byte order, exactly SQLite's BINARY order, so
    // both stores sort identically. Dates are the ISO 8601 strings the services write, kept as
    // text so they round-trip unchanged (a timestamptz would drop nothing today but would
    // re-format any other spelling).
    sql: `
      CREATE TABLE users (
        id            text COLLATE "C" PRIMARY KEY,
        full_name     text NOT NULL,
        email         text NOT NULL,
        -- trimmed, lower-cased email: the unique key for duplicates and login (decisions.md)
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
  },
  {
    version: 2,
    name: 'note-json',
    // Each note keeps its JSON text (the bytes JSON.stringify writes for its record, keys in
    // noteFromRow's order, compact; stored U+0000 escapes still in it: rows.ts decodeJsonText),
    // computed by PostgreSQL whenever the row is written. A listing then joins stored text
    // instead of escaping every field of every note on every read: pgbench, 8 clients, a 20-note
    // listing, 8 700–10 800 listings/s built per read against 17 000–19 400 from the column
    // (README, "What the profiles showed"). note_json is IMMUTABLE, as a generated column needs:
    // to_json of text and array_to_json of text[] depend on no setting. Adding a stored column
    // rewrites the table once, under an exclusive lock: a large table takes a while to migrate.
    // Concatenated rather than json_build_object, which writes "key" : value with spaces.
    sql: `
      CREATE FUNCTION note_json(id text, title text, content text, tags text[], is_pinned boolean,
                                user_id text, created_on text, updated_on text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$
          SELECT '{"_id":' || to_json(id) || ',"title":' || to_json(title) || ',"content":' || to_json(content)
            || ',"tags":' || array_to_json(tags) || ',"isPinned":' || CASE WHEN is_pinned THEN 'true' ELSE 'false' END
            || ',"userId":' || to_json(user_id) || ',"createdOn":' || to_json(created_on)
            || ',"updatedOn":' || to_json(updated_on) || '}'
        $$;

      ALTER TABLE notes ADD COLUMN json text NOT NULL
        GENERATED ALWAYS AS (note_json(id, title, content, tags, is_pinned, user_id, created_on, updated_on)) STORED;
    `,
  },
  {
    version: 3,
    name: 'account-change-notices',
    // Every change to an account that the service does not make itself (an operator deleting,
    // editing or truncating users; the service only inserts them) is announced on a channel, so
    // that each instance can keep accounts in memory and forget one the moment it changes
    // (account-listener.ts). NOTIFY is delivered when the transaction commits, never for one
    // that rolls back (https://www.postgresql.org/docs/current/sql-notify.html). An empty payload
    // (TRUNCATE, which has no rows) means "every account".
    sql: `
      CREATE FUNCTION notify_account_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          PERFORM pg_notify('notes_service_accounts', '');
        ELSE
          PERFORM pg_notify('notes_service_accounts', OLD.id);
        END IF;
        RETURN NULL;
      END
      $$;

      CREATE TRIGGER users_changed AFTER UPDATE OR DELETE ON users
        FOR EACH ROW EXECUTE FUNCTION notify_account_change();
      CREATE TRIGGER users_truncated AFTER TRUNCATE ON users
        FOR EACH STATEMENT EXECUTE FUNCTION notify_account_change();
    `,
  },
]
