// Each account's change feed, as in the SQLite migration of the same number (which says what each table holds), but
// numbered from one sequence: writers of one account must not take turns (docs/sync.md, "Why no change is skipped").
// A writer numbers its change while holding the account's feed lock in shared mode until it commits; a reader takes
// it in exclusive mode before its snapshot (feed.ts), so every number it can see below the highest has committed.
// note_feeds keeps the epoch and the floor, which only the sweep moves: no write updates it.
import type { Migration } from '../migrations.js'

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
        IF NOT EXISTS (SELECT 1 FROM users WHERE id = owner) THEN
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

    INSERT INTO note_feeds SELECT id, substr(md5(random()::text || id), 1, 16), 0 FROM users;
    INSERT INTO note_changes SELECT user_id, id, nextval('note_change'), updated_on, true FROM (SELECT * FROM notes ORDER BY updated_on, id) n;
  `,
}
