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
  },
  {
    version: 2,
    name: 'note-json',
    // Each note keeps its JSON text (the wire shape, keys in NoteRecord's order), computed by
    // SQLite whenever the row is written, with the expression that builds the note's wire JSON,
    // so the bytes sent are those of the record. A listing then joins stored text instead of
    // escaping every field of every note on every read (docs/performance.md, "What shaped the
    // design"). SQLite cannot add a STORED column to a table, so the table is rebuilt
    // (https://www.sqlite.org/lang_altertable.html#otheralter): once, inside the migration's
    // transaction; a large database takes a while to migrate. The columns are written out again
    // rather than shared with migration 1: a released migration's text must never change, which
    // a shared constant would allow.
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
    version: 3,
    name: 'account-usage',
    // Each account's note count and size (UTF-8 bytes of title, content and tags), kept by the
    // database itself, in the transaction of every change to notes (the service's writes, an
    // import, an operator's SQL), so that the per-account quota (docs/security.md, "What one
    // account may keep") is checked by reading one row instead of counting the account's notes
    // on every insert.
    // A row per account from its creation on (the quota check locks nothing in SQLite, where a
    // write transaction holds the database's one write lock, but it reads this row). Sizes are
    // octet_length of the stored text, and of each tag (json_each of the stored JSON array),
    // which is what Buffer.byteLength gives for the same strings. An edit that leaves title,
    // content, tags and owner as they were (a pin) leaves the row alone. The migration runs in
    // an IMMEDIATE transaction, so no write falls between the backfill and the triggers.
    sql: `
      CREATE TABLE account_usage (
        user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        notes   INTEGER NOT NULL,
        bytes   INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;

      CREATE TRIGGER account_usage_of_new_user AFTER INSERT ON users BEGIN
        INSERT INTO account_usage (user_id, notes, bytes) VALUES (NEW.id, 0, 0);
      END;

      CREATE TRIGGER account_usage_note_added AFTER INSERT ON notes BEGIN
        UPDATE account_usage SET notes = notes + 1,
          bytes = bytes + octet_length(NEW.title) + octet_length(NEW.content)
            + (SELECT coalesce(sum(octet_length(value)), 0) FROM json_each(NEW.tags))
        WHERE user_id = NEW.user_id;
      END;

      CREATE TRIGGER account_usage_note_removed AFTER DELETE ON notes BEGIN
        UPDATE account_usage SET notes = notes - 1,
          bytes = bytes - octet_length(OLD.title) - octet_length(OLD.content)
            - (SELECT coalesce(sum(octet_length(value)), 0) FROM json_each(OLD.tags))
        WHERE user_id = OLD.user_id;
      END;

      CREATE TRIGGER account_usage_note_resized AFTER UPDATE OF title, content, tags ON notes
        WHEN NEW.user_id = OLD.user_id
          AND (NEW.title IS NOT OLD.title OR NEW.content IS NOT OLD.content OR NEW.tags IS NOT OLD.tags)
      BEGIN
        UPDATE account_usage SET
          bytes = bytes + octet_length(NEW.title) + octet_length(NEW.content)
            + (SELECT coalesce(sum(octet_length(value)), 0) FROM json_each(NEW.tags))
            - octet_length(OLD.title) - octet_length(OLD.content)
            - (SELECT coalesce(sum(octet_length(value)), 0) FROM json_each(OLD.tags))
        WHERE user_id = NEW.user_id;
      END;

      -- Never done by the service: an operator moving a note to another account.
      CREATE TRIGGER account_usage_note_moved AFTER UPDATE OF user_id ON notes
        WHEN NEW.user_id IS NOT OLD.user_id
      BEGIN
        UPDATE account_usage SET notes = notes - 1,
          bytes = bytes - octet_length(OLD.title) - octet_length(OLD.content)
            - (SELECT coalesce(sum(octet_length(value)), 0) FROM json_each(OLD.tags))
        WHERE user_id = OLD.user_id;
        UPDATE account_usage SET notes = notes + 1,
          bytes = bytes + octet_length(NEW.title) + octet_length(NEW.content)
            + (SELECT coalesce(sum(octet_length(value)), 0) FROM json_each(NEW.tags))
        WHERE user_id = NEW.user_id;
      END;

      INSERT INTO account_usage (user_id, notes, bytes)
        SELECT u.id, count(n.id), coalesce(sum(octet_length(n.title) + octet_length(n.content)
            + (SELECT coalesce(sum(octet_length(value)), 0) FROM json_each(n.tags))), 0)
        FROM users u LEFT JOIN notes n ON n.user_id = u.id
        GROUP BY u.id;
    `,
  },
  {
    version: 4,
    name: 'well-formed-text',
    // Text stored before unpaired surrogates were refused is made valid UTF-8, and every email
    // key is recomputed with the NFKC rule; see migration-text.ts.
    run: wellFormedText,
  },
  // Versions 5 and 6 are taken by another change under way; this list is kept in version order.
  {
    version: 7,
    name: 'sessions',
    // Each token from /login or /create-account names a row here (docs/accounts.md): ending a
    // session deletes its row, and every request looks its session up by primary key, so the
    // end is seen by every process at its next request. An account's sessions go with it (ON
    // DELETE CASCADE). last_used_on is written at most every few minutes per session
    // (services/sessions.ts). sessions_by_user serves the per-account listing, pruning and
    // ending. tokens_not_before bounds the tokens issued before sessions existed, which name
    // none: NULL until logout-everywhere, change-password or an operator moves it.
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
  },
  {
    version: 8,
    name: 'user-versions',
    // A version of each user's notes and of each account (its row and its sessions), set by
    // triggers in the transaction of every change, so that the cache layer (src/store/cache)
    // can keep listings, accounts and sessions in memory and ask, with one small read after each
    // request arrived, whether they are still current. Whatever writes (the service, another
    // worker, an import, an operator's sqlite3 shell), the version changes with it.
    //
    // Every value comes from version_clock, which only grows, so a version never repeats, even
    // for an account deleted and imported again. A transaction that rolls back takes its values
    // back with it, unseen: no other connection reads uncommitted rows, and this driver's
    // transactions run without yielding to its reads. An account's row goes with the account
    // (a trigger, not ON DELETE CASCADE, which the sqlite3 shell does not apply by default); the
    // note and session triggers only update rows, so they never bring one back. SQLite has one
    // trigger per table and event, so the six note and session triggers are written out, alike.
    sql: `
      CREATE TABLE version_clock (
        id  INTEGER PRIMARY KEY CHECK (id = 1),
        now INTEGER NOT NULL
      ) STRICT;
      INSERT INTO version_clock VALUES (1, 1);

      CREATE TABLE user_versions (
        user_id TEXT PRIMARY KEY,
        notes   INTEGER NOT NULL,
        account INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      INSERT INTO user_versions SELECT id, 1, 1 FROM users;

      CREATE TRIGGER user_versions_user_added AFTER INSERT ON users BEGIN
        UPDATE version_clock SET now = now + 1;
        INSERT OR REPLACE INTO user_versions
          SELECT NEW.id, now, now FROM version_clock;
      END;

      CREATE TRIGGER user_versions_user_changed AFTER UPDATE ON users BEGIN
        UPDATE version_clock SET now = now + 1;
        DELETE FROM user_versions WHERE user_id = OLD.id AND OLD.id IS NOT NEW.id;
        INSERT OR REPLACE INTO user_versions
          SELECT NEW.id, now, now FROM version_clock;
      END;

      CREATE TRIGGER user_versions_user_removed AFTER DELETE ON users BEGIN
        DELETE FROM user_versions WHERE user_id = OLD.id;
      END;

      CREATE TRIGGER user_versions_note_added AFTER INSERT ON notes BEGIN
        UPDATE version_clock SET now = now + 1;
        UPDATE user_versions SET notes = (SELECT now FROM version_clock) WHERE user_id = NEW.user_id;
      END;

      CREATE TRIGGER user_versions_note_changed AFTER UPDATE ON notes BEGIN
        UPDATE version_clock SET now = now + 1;
        UPDATE user_versions SET notes = (SELECT now FROM version_clock) WHERE user_id IN (OLD.user_id, NEW.user_id);
      END;

      CREATE TRIGGER user_versions_note_removed AFTER DELETE ON notes BEGIN
        UPDATE version_clock SET now = now + 1;
        UPDATE user_versions SET notes = (SELECT now FROM version_clock) WHERE user_id = OLD.user_id;
      END;

      CREATE TRIGGER user_versions_session_added AFTER INSERT ON sessions BEGIN
        UPDATE version_clock SET now = now + 1;
        UPDATE user_versions SET account = (SELECT now FROM version_clock) WHERE user_id = NEW.user_id;
      END;

      CREATE TRIGGER user_versions_session_changed AFTER UPDATE ON sessions BEGIN
        UPDATE version_clock SET now = now + 1;
        UPDATE user_versions SET account = (SELECT now FROM version_clock) WHERE user_id IN (OLD.user_id, NEW.user_id);
      END;

      CREATE TRIGGER user_versions_session_removed AFTER DELETE ON sessions BEGIN
        UPDATE version_clock SET now = now + 1;
        UPDATE user_versions SET account = (SELECT now FROM version_clock) WHERE user_id = OLD.user_id;
      END;
    `,
  },
  {
    version: 9,
    name: 'version-clock-moves-on-account-removal',
    // version_clock moves with every change of any user's versions, so that one read of it tells
    // the cache layer whether any version read since can have changed (StoreDriver.versionClock).
    // Migration 8's trigger for a removed account deleted its versions without moving the clock.
    sql: `
      DROP TRIGGER user_versions_user_removed;
      CREATE TRIGGER user_versions_user_removed AFTER DELETE ON users BEGIN
        UPDATE version_clock SET now = now + 1;
        DELETE FROM user_versions WHERE user_id = OLD.id;
      END;
    `,
  },
]
