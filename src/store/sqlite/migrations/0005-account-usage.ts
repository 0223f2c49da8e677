// Each account's note count and UTF-8 size, kept by triggers with every change to notes, so the
// quota (docs/security.md, "What one account may keep") reads one row instead of counting notes.
// The migration's IMMEDIATE transaction lets no write fall between the backfill and the triggers.
import type { SqliteMigration as Migration } from '../../migrations.js'

export const migration: Migration = {
  version: 5,
  name: 'account-usage',
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
}
