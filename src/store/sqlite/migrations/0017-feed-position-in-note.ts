// A live note's place in its account's change feed (docs/sync.md, "The change feed") is its own row's change_seq,
// so a write adds one index entry on notes instead of a row in note_changes with its indexes and an update of
// note_feeds. note_changes keeps only notes that left the listing, until the sweep erases them; a note that comes
// back (restored from the trash) loses its gone row. Changes are numbered by version_clock, which the notes'
// triggers move on every write anyway (docs/caching.md): one writer at a time makes it a sequence, and each account
// reads its own numbers from it. The clock first moves past every account's last number, so no cursor given out
// before names a number that a later change takes.
//
// The driver's writes set change_seq to the number their trigger's move of the clock gives (NEXT_CHANGE), so the
// row is written once; the triggers number any other write (an import, an operator's SQL) by updating change_seq
// alone, which fires none of them again: the update triggers name every column but change_seq.
import type { SqliteMigration as Migration } from '../../migrations.js'

const NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`

/** The clock's move and the account's notes version (migration 9's), then the live note's number if the write gave none. */
const numbered = (accounts: string) => `
    UPDATE version_clock SET now = now + 1;
    UPDATE user_versions SET notes = (SELECT now FROM version_clock) WHERE user_id IN (${accounts});
    UPDATE notes SET change_seq = (SELECT now FROM version_clock)
      WHERE rowid = NEW.rowid AND change_seq IS NOT (SELECT now FROM version_clock);`

/** The gone row of note OLD in its account, numbered by the clock just moved; none while the account is being deleted. */
const gone = (when: string) => `
    INSERT INTO note_changes (user_id, note_id, seq, changed_on)
      SELECT OLD.user_id, OLD.id, now, ${NOW} FROM version_clock
      WHERE ${when} EXISTS (SELECT 1 FROM users WHERE id = OLD.user_id)
      ON CONFLICT (user_id, note_id) DO UPDATE SET seq = excluded.seq, changed_on = excluded.changed_on;`

export const migration: Migration = {
  version: 17,
  name: 'feed-position-in-note',
  sql: `
    DROP TRIGGER note_feed_note_added;
    DROP TRIGGER note_feed_note_changed;
    DROP TRIGGER note_feed_note_moved;
    DROP TRIGGER note_feed_note_removed;
    DROP TRIGGER user_versions_note_added;
    DROP TRIGGER user_versions_note_changed;
    DROP TRIGGER user_versions_note_removed;

    UPDATE version_clock SET now = max(now, coalesce((SELECT max(head) FROM note_feeds), 0));
    ALTER TABLE notes ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;
    UPDATE notes SET change_seq = c.seq FROM note_changes c WHERE c.user_id = notes.user_id AND c.note_id = notes.id;
    CREATE INDEX notes_in_feed_order ON notes (user_id, change_seq);
    DELETE FROM note_changes WHERE live = 1;
    DROP INDEX note_changes_gone;
    ALTER TABLE note_changes DROP COLUMN live;
    CREATE INDEX note_changes_by_age ON note_changes (changed_on);
    DROP TRIGGER note_feed_of_new_user;
    ALTER TABLE note_feeds DROP COLUMN head;
    CREATE TRIGGER note_feed_of_new_user AFTER INSERT ON users BEGIN
      INSERT INTO note_feeds VALUES (NEW.id, lower(hex(randomblob(8))), 0);
    END;

    CREATE TRIGGER notes_numbered_added AFTER INSERT ON notes BEGIN ${numbered('NEW.user_id')}
      DELETE FROM note_changes WHERE user_id = NEW.user_id AND note_id = NEW.id;
    END;
    CREATE TRIGGER notes_numbered_changed AFTER UPDATE OF id, user_id, title, content, tags, is_pinned, created_on, updated_on
      ON notes BEGIN ${numbered('OLD.user_id, NEW.user_id')}
      DELETE FROM note_changes WHERE NEW.user_id IS NOT OLD.user_id AND user_id = NEW.user_id AND note_id = NEW.id; ${gone('NEW.user_id IS NOT OLD.user_id AND')}
    END;
    CREATE TRIGGER notes_numbered_removed AFTER DELETE ON notes BEGIN
      UPDATE version_clock SET now = now + 1;
      UPDATE user_versions SET notes = (SELECT now FROM version_clock) WHERE user_id = OLD.user_id; ${gone('')}
    END;
  `,
}
