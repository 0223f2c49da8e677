// A live note's place in its account's change feed (docs/sync.md, "The change feed") is its own row's change_seq,
// numbered by a BEFORE trigger as the row is written, so a write costs one more index entry on notes instead of a
// row in note_changes with its indexes and an upsert. note_changes keeps only notes that left the listing, until the
// sweep erases them; a note that comes back (restored from the trash) loses its gone row. The numbering keeps
// migration 15's rule: under the account's feed lock in shared mode, from one sequence. A BEFORE UPDATE trigger runs
// once the row is locked, so a writer waiting for a note's row does not hold the feed lock while it waits.
import type { PostgresMigration as Migration } from '../../migrations.js'
import { FEED_LOCK_CLASS } from './0015-change-feed.js'

export const migration: Migration = {
  version: 17,
  name: 'feed-position-in-note',
  sql: `
    DROP TRIGGER notes_in_feed ON notes;
    DROP FUNCTION record_note_change(text, text, boolean);

    ALTER TABLE notes ADD COLUMN change_seq bigint NOT NULL DEFAULT 0;
    ALTER TABLE notes DISABLE TRIGGER notes_changed;
    UPDATE notes n SET change_seq = c.seq FROM note_changes c WHERE c.user_id = n.user_id AND c.note_id = n.id;
    ALTER TABLE notes ENABLE TRIGGER notes_changed;
    ALTER TABLE notes ALTER COLUMN change_seq DROP DEFAULT;
    CREATE INDEX notes_in_feed_order ON notes (user_id, change_seq);
    DELETE FROM note_changes WHERE live;
    ALTER TABLE note_changes DROP COLUMN live;
    CREATE INDEX note_changes_by_age ON note_changes (changed_on);

    -- Numbers a live note's change in its row; a note arriving in an account takes the place of its gone row there.
    CREATE FUNCTION number_note_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(${FEED_LOCK_CLASS}, hashtext(NEW.user_id));
        NEW.change_seq := nextval('note_change');
        IF TG_OP = 'INSERT' OR NEW.user_id IS DISTINCT FROM OLD.user_id THEN
          DELETE FROM note_changes WHERE user_id = NEW.user_id AND note_id = NEW.id;
        END IF;
        RETURN NEW;
      END
    $$;
    CREATE TRIGGER notes_numbered BEFORE INSERT OR UPDATE ON notes FOR EACH ROW EXECUTE FUNCTION number_note_change();

    -- A note leaving its account (deleted, or moved by an operator), numbered under the feed lock; none while the
    -- account is being deleted, as its feed goes with it.
    CREATE OR REPLACE FUNCTION note_feed_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          -- Gone notes leave no rows to tell of them: every cursor expires.
          DELETE FROM note_changes;
          UPDATE note_feeds SET floor = nextval('note_change');
          RETURN NULL;
        END IF;
        IF NOT EXISTS (SELECT 1 FROM users WHERE id = OLD.user_id) THEN
          RETURN NULL;
        END IF;
        PERFORM pg_advisory_xact_lock_shared(${FEED_LOCK_CLASS}, hashtext(OLD.user_id));
        INSERT INTO note_changes AS c
          VALUES (OLD.user_id, OLD.id, nextval('note_change'),
                  to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
          ON CONFLICT (user_id, note_id) DO UPDATE SET seq = EXCLUDED.seq, changed_on = EXCLUDED.changed_on;
        RETURN NULL;
      END
    $$;
    CREATE TRIGGER notes_removed_from_feed AFTER DELETE ON notes FOR EACH ROW EXECUTE FUNCTION note_feed_changed();
    CREATE TRIGGER notes_moved_from_feed AFTER UPDATE OF user_id ON notes FOR EACH ROW
      WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id) EXECUTE FUNCTION note_feed_changed();

    -- As in migration 15, the live notes' changes read from notes and the gone ones from note_changes.
    CREATE OR REPLACE FUNCTION feed_page(owner text, after bigint, most int, live_only boolean)
      RETURNS TABLE (locked boolean, epoch text, floor bigint, head bigint, seq bigint, note_id text, json text)
      LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        IF NOT pg_try_advisory_xact_lock(${FEED_LOCK_CLASS}, hashtext(owner)) THEN
          RETURN QUERY SELECT false, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint, NULL::text, NULL::text;
          RETURN;
        END IF;
        RETURN QUERY
          SELECT true, f.epoch, f.floor,
                 greatest(f.floor, (SELECT max(n.change_seq) FROM notes n WHERE n.user_id = owner),
                          (SELECT max(g.seq) FROM note_changes g WHERE g.user_id = owner)),
                 c.seq, c.note_id, c.json
          FROM note_feeds f
          LEFT JOIN LATERAL (
            SELECT u.seq, u.note_id, u.json FROM (
              (SELECT n.change_seq AS seq, n.id AS note_id, n.json FROM notes n
               WHERE n.user_id = f.user_id AND n.change_seq > after ORDER BY n.change_seq LIMIT most)
              UNION ALL
              (SELECT g.seq, g.note_id, NULL::text FROM note_changes g
               WHERE g.user_id = f.user_id AND g.seq > after AND NOT live_only ORDER BY g.seq LIMIT most)
            ) u ORDER BY u.seq LIMIT most
          ) c ON true
          WHERE f.user_id = owner
          ORDER BY c.seq;
      END
    $$;
  `,
}
