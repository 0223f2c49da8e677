// Each account's change feed, as in the SQLite migration of the same number (which says what each table holds), but
// numbered from one sequence: writers of one account must not take turns (docs/sync.md, "Why no change is skipped").
// A writer numbers its change while holding the account's feed lock in shared mode until it commits; feed_page holds
// it in exclusive mode while it takes its snapshot, so every number it can see below the highest has committed. It
// only tries the lock, never queues for it: a reader waiting in the queue would hold back writers that already hold
// other locks, which can close a cycle. note_feeds keeps the epoch and the floor, which only the sweep moves.
import type { PostgresMigration as Migration } from '../../migrations.js'

/** The advisory lock class of the feed locks; the second key is hashtext(user_id). */
export const FEED_LOCK_CLASS = 15

export const migration: Migration = {
  version: 15,
  name: 'change-feed',
  sql: `
    CREATE SEQUENCE note_change;

    CREATE TABLE note_feeds (
      user_id text COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
      epoch text NOT NULL,
      floor bigint NOT NULL
    );
    CREATE TABLE note_changes (
      user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      note_id text COLLATE "C" NOT NULL,
      seq bigint NOT NULL,
      changed_on text COLLATE "C" NOT NULL,
      live boolean NOT NULL,
      PRIMARY KEY (user_id, note_id)
    );
    CREATE UNIQUE INDEX note_changes_in_order ON note_changes (user_id, seq);
    CREATE INDEX note_changes_gone ON note_changes (changed_on) WHERE NOT live;

    CREATE FUNCTION new_note_feed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO note_feeds VALUES (NEW.id, substr(md5(random()::text || NEW.id), 1, 16), 0);
        RETURN NULL;
      END
    $$;
    CREATE TRIGGER note_feed_of_new_user AFTER INSERT ON users FOR EACH ROW EXECUTE FUNCTION new_note_feed();

    -- The change of note (owner, note), numbered under the account's feed lock; none while the account is being deleted.
    CREATE FUNCTION record_note_change(owner text, note text, is_live boolean) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        -- A note leaving as its account is deleted: the account's feed goes with it.
        IF NOT is_live AND NOT EXISTS (SELECT 1 FROM users WHERE id = owner) THEN
          RETURN;
        END IF;
        PERFORM pg_advisory_xact_lock_shared(${FEED_LOCK_CLASS}, hashtext(owner));
        INSERT INTO note_changes AS c
          VALUES (owner, note, nextval('note_change'),
                  to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), is_live)
          ON CONFLICT (user_id, note_id) DO UPDATE SET seq = EXCLUDED.seq, changed_on = EXCLUDED.changed_on, live = EXCLUDED.live;
      END
    $$;

    CREATE FUNCTION note_feed_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          -- Gone notes leave no rows to tell of them: every cursor expires.
          DELETE FROM note_changes;
          UPDATE note_feeds SET floor = nextval('note_change');
          RETURN NULL;
        END IF;
        IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
          PERFORM record_note_change(OLD.user_id, OLD.id, false);
        END IF;
        IF TG_OP <> 'DELETE' THEN
          PERFORM record_note_change(NEW.user_id, NEW.id, true);
        END IF;
        RETURN NULL;
      END
    $$;
    CREATE TRIGGER notes_in_feed AFTER INSERT OR UPDATE OR DELETE ON notes FOR EACH ROW EXECUTE FUNCTION note_feed_changed();
    CREATE TRIGGER notes_in_feed_truncated AFTER TRUNCATE ON notes FOR EACH STATEMENT EXECUTE FUNCTION note_feed_changed();

    -- A page of the account's changes after the number given, or one row with locked = false while a writer holds the feed lock
    -- (feed.ts tries again). VOLATILE: the page's query takes its snapshot after the lock is held.
    CREATE FUNCTION feed_page(owner text, after bigint, most int, live_only boolean)
      RETURNS TABLE (locked boolean, epoch text, floor bigint, head bigint, seq bigint, note_id text, json text)
      LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        IF NOT pg_try_advisory_xact_lock(${FEED_LOCK_CLASS}, hashtext(owner)) THEN
          RETURN QUERY SELECT false, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint, NULL::text, NULL::text;
          RETURN;
        END IF;
        RETURN QUERY
          SELECT true, f.epoch, f.floor, greatest(f.floor, (SELECT max(m.seq) FROM note_changes m WHERE m.user_id = owner)),
                 c.seq, c.note_id, c.json
          FROM note_feeds f
          LEFT JOIN LATERAL (
            SELECT c.seq, c.note_id, n.json FROM note_changes c LEFT JOIN notes n ON n.user_id = c.user_id AND n.id = c.note_id
            WHERE c.user_id = f.user_id AND c.seq > after AND (c.live OR NOT live_only) ORDER BY c.seq LIMIT most
          ) c ON true
          WHERE f.user_id = owner
          ORDER BY c.seq;
      END
    $$;

    INSERT INTO note_feeds SELECT id, substr(md5(random()::text || id), 1, 16), 0 FROM users;
    INSERT INTO note_changes SELECT user_id, id, nextval('note_change'), updated_on, true FROM (SELECT * FROM notes ORDER BY updated_on, id) n;
  `,
}
