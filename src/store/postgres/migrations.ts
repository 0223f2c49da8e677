// Numbered schema migrations for the PostgreSQL driver (mirrors sqlite/migrations.ts). Each runs
// once, in order, inside the one transaction that holds the migration advisory lock, and is
// recorded in schema_migrations. Never edit a released migration: add one.
import type pg from 'pg'
import { nfkcEmailKeys } from './migration-email-keys.js'

export interface Migration {
  version: number
  name: string
  /** Run first. */
  sql?: string
  /** What SQL cannot do (JavaScript's Unicode rules, say), run after `sql` in the same transaction. */
  run?: (client: pg.ClientBase) => Promise<void>
}

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
  },
  {
    version: 2,
    name: 'note-json',
    // Each note keeps its JSON text (the bytes JSON.stringify writes for its record, keys in
    // noteFromRow's order, compact; stored U+0000 escapes still in it: rows.ts decodeJsonText),
    // computed by PostgreSQL whenever the row is written. A listing then joins stored text
    // instead of escaping every field of every note on every read (docs/performance.md, "What
    // shaped the design"). note_json is IMMUTABLE, as a generated column needs: to_json of text
    // and array_to_json of text[] depend on no setting. Adding a
    // stored column rewrites the table once, under an exclusive lock: a large table takes a
    // while to migrate.
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
    // Every change to an account (an update, a deletion, TRUNCATE) is announced on a channel, on
    // which instances of earlier releases forget the account they keep. This release checks
    // migration 10's account versions instead and listens to nothing; the notices stay for an
    // earlier instance still running during a rolling upgrade. NOTIFY is delivered when the
    // transaction commits, never for one that rolls back
    // (https://www.postgresql.org/docs/current/sql-notify.html). An empty payload (TRUNCATE,
    // which has no rows) means "every account".
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
    // is still current (src/store/cache). Unlike a notice, the answer is never late.
    //
    // Each value comes from a sequence, so no version repeats, even after TRUNCATE. A user's
    // version is all their rows' values joined in shard order. The shard is the writing
    // backend's pid modulo 16: a backend runs one transaction at a time, so writers of the same
    // user rarely wait for each other's row lock until commit (with one row per user, concurrent
    // writes of one user would commit one by one). Rows go when their account goes (ON DELETE
    // CASCADE); TRUNCATE of notes deletes them all, and a user without rows is never answered
    // from memory.
    //
    // A row trigger, not a statement trigger with transition tables, which costs edit-note far
    // more of its rate (docs/performance.md, "What shaped the design"). A row this transaction has
    // already set is left alone (its xmin is this transaction's id): every change of the
    // transaction becomes visible at once, with that version, and a bulk insert of a user's
    // notes writes their row once instead of once per note, which spares an import most of the
    // trigger's cost.
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
    // per-account quota (docs/security.md, "What one account may keep") is checked by reading a
    // few rows instead of counting the account's notes on every insert (mirrors SQLite's
    // migration 3). A note's size
    // is note_bytes: the UTF-8 bytes of title, content and tags as stored (rows.ts escapes
    // U+0000 and U+FFFF); the quota check calls the same function.
    //
    // Sharded as note_versions is, and kept by migration 4's trigger function, replaced here to
    // do both: a change adds its deltas to the row of the writing backend's shard, so concurrent
    // writes of one account rarely wait for each other's row lock until commit (with one row per
    // account they would commit one at a time), and one trigger call per row costs PostgreSQL
    // less CPU per insert than a second trigger (docs/performance.md, "What shaped the design").
    // An account's usage is the sum of its rows; one without rows uses nothing. Pins change no
    // size and leave the usage rows alone.
    //
    // note_quota_check decides whether a write may add to an account. It takes the account's
    // advisory lock of its backend's slot (the shard again), then reads the sums: each statement
    // of a PL/pgSQL function reads a new snapshot, so they include every write that held a slot
    // lock before. Writes of one account in different slots run side by side; the sums cannot
    // see the others in flight, at most one per other slot, so such a write passes only while the
    // limits hold with 16 writes added at once, each of at most `p_bound` bytes. Nearer the
    // limits it answers 'retry', and the caller asks again with `p_exclusive`: all 16 slots are
    // taken, in order, which waits for the writes in flight to commit, and the sums are exact.
    // An edit is measured against the note as it is once the lock is held. Imports, deletes and
    // pins take no lock: an import is not held to the quota, and the others add nothing.
    //
    // The trigger function is replaced and the backfill made in the migration's transaction; a
    // SHARE lock on notes, taken first, waits for the writes in progress and holds off new ones
    // (reads go on) until it commits, so the backfill misses no write.
    sql: `
      LOCK TABLE notes IN SHARE MODE;

      CREATE FUNCTION note_bytes(title text, content text, tags text[]) RETURNS bigint
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT octet_length(title)::bigint + octet_length(content) + octet_length(array_to_string(tags, '')) $$;

      CREATE TABLE account_usage (
        user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        shard   smallint NOT NULL,
        notes   bigint NOT NULL,
        bytes   bigint NOT NULL,
        PRIMARY KEY (user_id, shard)
      );

      CREATE OR REPLACE FUNCTION note_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        my_shard smallint := pg_backend_pid() % 16;
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          DELETE FROM note_versions;
          DELETE FROM account_usage;
          RETURN NULL;
        END IF;
        -- The notes' version (migration 4).
        IF TG_OP <> 'INSERT' THEN
          INSERT INTO note_versions AS v VALUES (OLD.user_id, my_shard, nextval('note_version'))
            ON CONFLICT (user_id, shard) DO UPDATE SET version = EXCLUDED.version WHERE v.xmin <> pg_current_xact_id()::xid;
        END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
          INSERT INTO note_versions AS v VALUES (NEW.user_id, my_shard, nextval('note_version'))
            ON CONFLICT (user_id, shard) DO UPDATE SET version = EXCLUDED.version WHERE v.xmin <> pg_current_xact_id()::xid;
        END IF;
        -- The account's usage.
        IF TG_OP = 'UPDATE' AND NEW.user_id = OLD.user_id THEN
          IF NEW.title IS DISTINCT FROM OLD.title OR NEW.content IS DISTINCT FROM OLD.content OR NEW.tags IS DISTINCT FROM OLD.tags THEN
            INSERT INTO account_usage AS u VALUES (NEW.user_id, my_shard, 0,
                note_bytes(NEW.title, NEW.content, NEW.tags) - note_bytes(OLD.title, OLD.content, OLD.tags))
              ON CONFLICT (user_id, shard) DO UPDATE SET bytes = u.bytes + EXCLUDED.bytes;
          END IF;
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' THEN
          INSERT INTO account_usage AS u VALUES (OLD.user_id, my_shard, -1, -note_bytes(OLD.title, OLD.content, OLD.tags))
            ON CONFLICT (user_id, shard) DO UPDATE SET notes = u.notes + EXCLUDED.notes, bytes = u.bytes + EXCLUDED.bytes;
        END IF;
        IF TG_OP <> 'DELETE' THEN
          INSERT INTO account_usage AS u VALUES (NEW.user_id, my_shard, 1, note_bytes(NEW.title, NEW.content, NEW.tags))
            ON CONFLICT (user_id, shard) DO UPDATE SET notes = u.notes + EXCLUDED.notes, bytes = u.bytes + EXCLUDED.bytes;
        END IF;
        RETURN NULL;
      END
      $$;

      -- 'pass', 'retry' (one slot, near a limit), 'notes' or 'bytes' (the limit met), or
      -- 'missing' (the edited note is not the account's). p_note NULL: an insert of a note of
      -- p_title, p_content and p_tags; otherwise an edit of p_note with those (NULL: unchanged).
      CREATE FUNCTION note_quota_check(p_user text, p_note text, p_title text, p_content text, p_tags text[],
                                       p_exclusive boolean, p_max_notes bigint, p_max_bytes bigint, p_bound bigint)
        RETURNS text LANGUAGE plpgsql AS $$
      DECLARE
        account int := hashtext(p_user);
        adds int := CASE WHEN p_note IS NULL THEN 1 ELSE 0 END;
        grows bigint;
        used_notes bigint;
        used_bytes bigint;
      BEGIN
        IF p_exclusive THEN
          FOR slot IN 0..15 LOOP
            PERFORM pg_advisory_xact_lock(account, slot);
          END LOOP;
        ELSE
          PERFORM pg_advisory_xact_lock(account, pg_backend_pid() % 16);
        END IF;
        IF p_note IS NULL THEN
          grows := note_bytes(p_title, p_content, p_tags);
        ELSE
          SELECT note_bytes(COALESCE(p_title, title), COALESCE(p_content, content), COALESCE(p_tags, tags))
                 - note_bytes(title, content, tags)
            INTO grows FROM notes WHERE user_id = p_user AND id = p_note;
          IF NOT FOUND THEN
            RETURN 'missing';
          ELSIF grows <= 0 THEN
            RETURN 'pass';
          END IF;
        END IF;
        SELECT coalesce(sum(notes), 0), coalesce(sum(bytes), 0) INTO used_notes, used_bytes
          FROM account_usage WHERE user_id = p_user;
        IF p_exclusive THEN
          IF adds > 0 AND used_notes + adds > p_max_notes THEN
            RETURN 'notes';
          ELSIF used_bytes + grows > p_max_bytes THEN
            RETURN 'bytes';
          END IF;
          RETURN 'pass';
        ELSIF (adds = 0 OR used_notes + 16 <= p_max_notes) AND used_bytes + 16 * p_bound <= p_max_bytes THEN
          RETURN 'pass';
        END IF;
        RETURN 'retry';
      END
      $$;

      INSERT INTO account_usage (user_id, shard, notes, bytes)
        SELECT user_id, 0, count(*), sum(note_bytes(title, content, tags)) FROM notes GROUP BY user_id;
    `,
  },
  {
    version: 6,
    name: 'nfkc-email-keys',
    // Every email key recomputed with the NFKC rule; see migration-email-keys.ts.
    run: nfkcEmailKeys,
  },
  // Versions 7 and 8 are taken by another change under way; this list is kept in version order.
  {
    version: 9,
    name: 'sessions',
    // Each token from /login or /create-account names a row here (docs/accounts.md): ending a
    // session deletes its row, and every request looks its session up by primary key, so the end
    // is seen by every instance at its next request (mirrors SQLite's migration 7). An account's
    // sessions go with it (ON DELETE CASCADE). last_used_on is written at most every few minutes
    // per session (services/sessions.ts). sessions_by_user serves the per-account listing,
    // pruning and ending. tokens_not_before bounds the tokens issued before sessions existed,
    // which name none: NULL until logout-everywhere, change-password or an operator moves it.
    // Adding a column without a default changes no row: instant on a large table.
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
  },
  {
    version: 10,
    name: 'account-versions',
    // A version of each account (its row and its sessions), set by triggers in the transaction
    // of every change, as migration 4's note_versions is for notes, so that the cache layer
    // (src/store/cache) can keep accounts and sessions in memory and ask, with one small query
    // after each request arrived, whether they are still current: a change through any instance,
    // an import or an operator's SQL is seen at once, with no notice to wait for (mirrors
    // SQLite's migration 8). Values come from a sequence, so no version repeats. An account's row
    // goes with the account; the session trigger only updates rows, so it never brings one back.
    // One row per account: sessions of one account change rarely (a login, a touch every few
    // minutes), so writers of one account seldom wait for each other's row lock.
    //
    // Every change of a version is also announced, with the account's id ('' for all), on a
    // channel that instances listen to (postgres/account-notices.ts), so that while notices are
    // proven to arrive an instance can use a kept account without asking for its version.
    // NOTIFY is delivered when the transaction commits, never for one that rolls back
    // (https://www.postgresql.org/docs/current/sql-notify.html). Migration 3's notices stay: an
    // instance of an earlier release, still running during a rolling upgrade, keeps its accounts
    // by them.
    sql: `
      CREATE SEQUENCE account_version;

      CREATE TABLE account_versions (
        user_id text COLLATE "C" PRIMARY KEY,
        version bigint NOT NULL
      );
      INSERT INTO account_versions SELECT id, nextval('account_version') FROM users;

      CREATE FUNCTION account_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          PERFORM pg_notify('notes_service_account_versions', '');
          IF TG_TABLE_NAME = 'users' THEN
            DELETE FROM account_versions;
          ELSE
            UPDATE account_versions SET version = nextval('account_version');
          END IF;
          RETURN NULL;
        END IF;
        -- OLD and NEW are read only in the branch of their table: a record has only its own fields.
        IF TG_TABLE_NAME = 'users' THEN
          IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND NEW.id IS DISTINCT FROM OLD.id) THEN
            DELETE FROM account_versions WHERE user_id = OLD.id;
            PERFORM pg_notify('notes_service_account_versions', OLD.id);
          END IF;
          IF TG_OP <> 'DELETE' THEN
            INSERT INTO account_versions AS v VALUES (NEW.id, nextval('account_version'))
              ON CONFLICT (user_id) DO UPDATE SET version = EXCLUDED.version;
            PERFORM pg_notify('notes_service_account_versions', NEW.id);
          END IF;
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' THEN
          UPDATE account_versions SET version = nextval('account_version') WHERE user_id = OLD.user_id;
          PERFORM pg_notify('notes_service_account_versions', OLD.user_id);
        END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
          UPDATE account_versions SET version = nextval('account_version') WHERE user_id = NEW.user_id;
          PERFORM pg_notify('notes_service_account_versions', NEW.user_id);
        END IF;
        RETURN NULL;
      END
      $$;

      CREATE TRIGGER users_versioned AFTER INSERT OR UPDATE OR DELETE ON users
        FOR EACH ROW EXECUTE FUNCTION account_changed();
      CREATE TRIGGER users_versions_truncated AFTER TRUNCATE ON users
        FOR EACH STATEMENT EXECUTE FUNCTION account_changed();
      CREATE TRIGGER sessions_versioned AFTER INSERT OR UPDATE OR DELETE ON sessions
        FOR EACH ROW EXECUTE FUNCTION account_changed();
      CREATE TRIGGER sessions_versions_truncated AFTER TRUNCATE ON sessions
        FOR EACH STATEMENT EXECUTE FUNCTION account_changed();
    `,
  },
]
