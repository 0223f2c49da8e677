// Versions of each user's notes and account (row and sessions), moved by triggers with every
// change by any writer, for the cache layer's checks (docs/caching.md). Values come from
// version_clock, which only grows, so none repeats. An account's row goes by a trigger, not ON
// DELETE CASCADE, which the sqlite3 shell does not apply by default.
import type { SqliteMigration as Migration } from '../../migrations.js'

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
