// octet_length() is in SQLite only since 3.43, so with migration 5's triggers an older sqlite3
// shell (Debian 12 has 3.40) cannot change a note or delete an account. The four triggers are made
// again with length(CAST(x AS BLOB)), which gives the same bytes (test/sqlite-shell.test.ts
// compares the two); the counts stored are unchanged.
import type { SqliteMigration as Migration } from '../../migrations.js'

export const migration: Migration = {
  version: 12,
  name: 'account-usage-without-octet-length',
  sql: `
    DROP TRIGGER account_usage_note_added;
    CREATE TRIGGER account_usage_note_added AFTER INSERT ON notes BEGIN
      UPDATE account_usage SET notes = notes + 1,
        bytes = bytes + length(CAST(NEW.title AS BLOB)) + length(CAST(NEW.content AS BLOB))
          + (SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM json_each(NEW.tags))
      WHERE user_id = NEW.user_id;
    END;

    DROP TRIGGER account_usage_note_removed;
    CREATE TRIGGER account_usage_note_removed AFTER DELETE ON notes BEGIN
      UPDATE account_usage SET notes = notes - 1,
        bytes = bytes - length(CAST(OLD.title AS BLOB)) - length(CAST(OLD.content AS BLOB))
          - (SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM json_each(OLD.tags))
      WHERE user_id = OLD.user_id;
    END;

    DROP TRIGGER account_usage_note_resized;
    CREATE TRIGGER account_usage_note_resized AFTER UPDATE OF title, content, tags ON notes
      WHEN NEW.user_id = OLD.user_id
        AND (NEW.title IS NOT OLD.title OR NEW.content IS NOT OLD.content OR NEW.tags IS NOT OLD.tags)
    BEGIN
      UPDATE account_usage SET
        bytes = bytes + length(CAST(NEW.title AS BLOB)) + length(CAST(NEW.content AS BLOB))
          + (SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM json_each(NEW.tags))
          - length(CAST(OLD.title AS BLOB)) - length(CAST(OLD.content AS BLOB))
          - (SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM json_each(OLD.tags))
      WHERE user_id = NEW.user_id;
    END;

    -- Never done by the service: an operator moving a note to another account.
    DROP TRIGGER account_usage_note_moved;
    CREATE TRIGGER account_usage_note_moved AFTER UPDATE OF user_id ON notes
      WHEN NEW.user_id IS NOT OLD.user_id
    BEGIN
      UPDATE account_usage SET notes = notes - 1,
        bytes = bytes - length(CAST(OLD.title AS BLOB)) - length(CAST(OLD.content AS BLOB))
          - (SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM json_each(OLD.tags))
      WHERE user_id = OLD.user_id;
      UPDATE account_usage SET notes = notes + 1,
        bytes = bytes + length(CAST(NEW.title AS BLOB)) + length(CAST(NEW.content AS BLOB))
          + (SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM json_each(NEW.tags))
      WHERE user_id = NEW.user_id;
    END;
  `,
}
