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
  {
    version: 4,
    name: 'note-versions',
    // A version of each user's notes, changed in the same transaction as every change to them
    // (a trigger, so an operator's SQL and an import count too), so that an instance can keep a
    // listing in memory and ask, with one small query at the time of each request, whether it
    // is still current (note-versions.ts). Unlike a notice, the answer is never late.
    //
    // Each value comes from a sequence, so no version repeats, even after TRUNCATE. A user's
    // version is all their rows' values joined in shard order. The shard is the writing
    // backend's pid modulo 16: a backend runs one transaction at a time, so writers of the same
    // user rarely wait for each other's row lock until commit (with one row per user, concurrent
    // writes of one user would commit one by one). Rows go when their account goes (ON DELETE
    // CASCADE); TRUNCATE of notes deletes them all, and a user without rows is never answered
    // from memory.
    //
    // A row trigger, not a statement trigger with transition tables: through the service at 32
    // connections, edit-note lost about a tenth of its rate with it and a third with the
    // statement trigger (README, "Listings are kept in memory"). A row this transaction has
    // already set is left alone (its xmin is this transaction's id): every change of the
    // transaction becomes visible at once, with that version, and a bulk insert of a user's
    // notes writes their row once instead of once per note (200 000 notes of 2 000 users in one
    // statement: 4.9–5.7 s without the trigger, 7.6–8.8 s setting the row every time, 6.4–7.4 s
    // with this).
    sql: `
      CREATE SEQUENCE note_version;

      CREATE TABLE note_versions (
        user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        shard   smallint NOT NULL,
        version bigint NOT NULL,
        PRIMARY KEY (user_id, shard)
      );

      CREATE FUNCTION note_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          DELETE FROM note_versions;
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' THEN
          INSERT INTO note_versions AS v VALUES (OLD.user_id, pg_backend_pid() % 16, nextval('note_version'))
            ON CONFLICT (user_id, shard) DO UPDATE SET version = EXCLUDED.version WHERE v.xmin <> pg_current_xact_id()::xid;
        END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
          INSERT INTO note_versions AS v VALUES (NEW.user_id, pg_backend_pid() % 16, nextval('note_version'))
            ON CONFLICT (user_id, shard) DO UPDATE SET version = EXCLUDED.version WHERE v.xmin <> pg_current_xact_id()::xid;
        END IF;
        RETURN NULL;
      END
      $$;

      CREATE TRIGGER notes_changed AFTER INSERT OR UPDATE OR DELETE ON notes
        FOR EACH ROW EXECUTE FUNCTION note_changed();
      CREATE TRIGGER notes_truncated AFTER TRUNCATE ON notes
        FOR EACH STATEMENT EXECUTE FUNCTION note_changed();

      -- Notes written before this migration: one version per user who has notes.
      INSERT INTO note_versions (user_id, shard, version)
        SELECT user_id, 0, nextval('note_version') FROM notes GROUP BY user_id;
    `,
  },
  {
    version: 5,
    name: 'account-usage',
    // Each account's note count and size, kept by the database itself in the transaction of
    // every change to notes (the service's writes, an import, an operator's SQL), so that the
    // per-account quota (README "Configuration") is checked by reading one row instead of
    // counting the account's notes on every insert (mirrors SQLite's migration 3). A note's size
    // is note_bytes: the UTF-8 bytes of title, content and tags as stored (rows.ts escapes
    // U+0000 and U+FFFF). The store's quota statements call the same function, so a check and
    // the count it checks against cannot measure differently.
    //
    // One row per account, created with the account: a quota-checked write locks it first
    // (SELECT ... FOR UPDATE) and every change to the account's notes updates it, so one
    // account's writes commit one at a time while other accounts' do not wait. Every statement
    // of the service that changes a row's size takes this lock before the note's own (notes.ts),
    // so two of them never wait for each other in a cycle. An update that leaves title, content,
    // tags and owner as they were (a pin) leaves the row alone.
    //
    // CREATE TRIGGER takes a lock on notes that waits for writes in progress and holds off new
    // ones until this transaction commits, so the backfill after it misses no write.
    sql: `
      CREATE FUNCTION note_bytes(title text, content text, tags text[]) RETURNS bigint
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT octet_length(title)::bigint + octet_length(content) + octet_length(array_to_string(tags, '')) $$;

      CREATE TABLE account_usage (
        user_id text COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        notes   bigint NOT NULL,
        bytes   bigint NOT NULL
      );

      CREATE FUNCTION account_created() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO account_usage (user_id, notes, bytes) VALUES (NEW.id, 0, 0);
        RETURN NULL;
      END
      $$;

      CREATE FUNCTION note_usage_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          UPDATE account_usage SET notes = 0, bytes = 0 WHERE notes <> 0 OR bytes <> 0;
        ELSIF TG_OP = 'UPDATE' AND NEW.user_id = OLD.user_id THEN
          UPDATE account_usage
            SET bytes = bytes + note_bytes(NEW.title, NEW.content, NEW.tags) - note_bytes(OLD.title, OLD.content, OLD.tags)
            WHERE user_id = NEW.user_id;
        ELSE
          IF TG_OP <> 'INSERT' THEN
            UPDATE account_usage SET notes = notes - 1, bytes = bytes - note_bytes(OLD.title, OLD.content, OLD.tags)
              WHERE user_id = OLD.user_id;
          END IF;
          IF TG_OP <> 'DELETE' THEN
            UPDATE account_usage SET notes = notes + 1, bytes = bytes + note_bytes(NEW.title, NEW.content, NEW.tags)
              WHERE user_id = NEW.user_id;
          END IF;
        END IF;
        RETURN NULL;
      END
      $$;

      CREATE TRIGGER account_usage_created AFTER INSERT ON users
        FOR EACH ROW EXECUTE FUNCTION account_created();
      CREATE TRIGGER note_usage_added_or_removed AFTER INSERT OR DELETE ON notes
        FOR EACH ROW EXECUTE FUNCTION note_usage_changed();
      CREATE TRIGGER note_usage_resized AFTER UPDATE OF title, content, tags, user_id ON notes
        FOR EACH ROW
        WHEN (NEW.title IS DISTINCT FROM OLD.title OR NEW.content IS DISTINCT FROM OLD.content
              OR NEW.tags IS DISTINCT FROM OLD.tags OR NEW.user_id IS DISTINCT FROM OLD.user_id)
        EXECUTE FUNCTION note_usage_changed();
      CREATE TRIGGER note_usage_truncated AFTER TRUNCATE ON notes
        FOR EACH STATEMENT EXECUTE FUNCTION note_usage_changed();

      INSERT INTO account_usage (user_id, notes, bytes)
        SELECT u.id, count(n.id), coalesce(sum(note_bytes(n.title, n.content, n.tags)), 0)
        FROM users u LEFT JOIN notes n ON n.user_id = u.id
        GROUP BY u.id;
    `,
  },
]
