// Each account's change feed (docs/sync.md, "The change feed"): note_feeds numbers the account's note changes
// (head) and says below which number changes may have been erased (floor); note_changes keeps each note's latest
// change, live or gone, so a page of changes is one range of note_changes_in_order. Triggers keep both in the
// transaction of every write to notes (an import or an operator's SQL too). A gone note's row stays until the
// sweep erases it, raising the floor; `epoch` is drawn when the feed is made, so a cursor from another account or
// another database never matches.
import type { SqliteMigration as Migration } from '../../migrations.js'

const NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`

/**
 * Records the change of note `ref` (NEW or OLD), live or not, as the account's next change. A note leaving is recorded
 * only while its account exists: deleting an account deletes its notes after it, and a row for it would break the key.
 */
const recordChange = (ref: 'NEW' | 'OLD', live: 0 | 1) => `
    UPDATE note_feeds SET head = head + 1 WHERE user_id = ${ref}.user_id;
    INSERT INTO note_changes (user_id, note_id, seq, changed_on, live)
      SELECT ${ref}.user_id, ${ref}.id, head, ${NOW}, ${live} FROM note_feeds
      WHERE user_id = ${ref}.user_id${live ? '' : ` AND EXISTS (SELECT 1 FROM users WHERE id = ${ref}.user_id)`}
      ON CONFLICT (user_id, note_id) DO UPDATE SET seq = excluded.seq, changed_on = excluded.changed_on, live = excluded.live;`

export const migration: Migration = {
  version: 15,
  name: 'change-feed',
  sql: `
    CREATE TABLE note_feeds (
      user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      epoch   TEXT NOT NULL,
      head    INTEGER NOT NULL,
      floor   INTEGER NOT NULL
    ) STRICT, WITHOUT ROWID;
    CREATE TABLE note_changes (
      user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      note_id    TEXT NOT NULL,
      seq        INTEGER NOT NULL,
      changed_on TEXT NOT NULL,
      live       INTEGER NOT NULL,
      PRIMARY KEY (user_id, note_id)
    ) STRICT, WITHOUT ROWID;
    CREATE UNIQUE INDEX note_changes_in_order ON note_changes (user_id, seq);
    -- Only gone notes' rows: what the sweep erases, by age.
    CREATE INDEX note_changes_gone ON note_changes (changed_on) WHERE live = 0;

    CREATE TRIGGER note_feed_of_new_user AFTER INSERT ON users BEGIN
      INSERT INTO note_feeds VALUES (NEW.id, lower(hex(randomblob(8))), 0, 0);
    END;
    CREATE TRIGGER note_feed_note_added AFTER INSERT ON notes BEGIN ${recordChange('NEW', 1)}
    END;
    CREATE TRIGGER note_feed_note_changed AFTER UPDATE ON notes BEGIN ${recordChange('NEW', 1)}
    END;
    -- Never done by the service: an operator moving a note to another account.
    CREATE TRIGGER note_feed_note_moved AFTER UPDATE OF user_id ON notes WHEN NEW.user_id IS NOT OLD.user_id
    BEGIN ${recordChange('OLD', 0)}
    END;
    CREATE TRIGGER note_feed_note_removed AFTER DELETE ON notes BEGIN ${recordChange('OLD', 0)}
    END;

    INSERT INTO note_feeds
      SELECT id, lower(hex(randomblob(8))), (SELECT count(*) FROM notes WHERE user_id = users.id), 0 FROM users;
    INSERT INTO note_changes
      SELECT user_id, id, row_number() OVER (PARTITION BY user_id ORDER BY updated_on, id), updated_on, 1 FROM notes;
  `,
}
