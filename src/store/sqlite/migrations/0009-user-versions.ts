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
import type { Migration } from '../migrations.js'

export const migration: Migration = {
  version: 9,
  name: 'user-versions',
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
}
