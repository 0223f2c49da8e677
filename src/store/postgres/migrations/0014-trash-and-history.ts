// The trash and the revision history (docs/history.md), as in the SQLite migration of the same number, with
// PL/pgSQL for what an edit does in its one statement (notes.ts): next_note_version, keep_revision, trim_kept.
import type { PostgresMigration as Migration } from '../../migrations.js'

export const migration: Migration = {
  version: 14,
  name: 'trash-and-history',
  sql: `
    CREATE TABLE trashed_notes (
      id text COLLATE "C" PRIMARY KEY,
      user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      title text NOT NULL,
      content text NOT NULL,
      tags text[] NOT NULL,
      is_pinned boolean NOT NULL,
      created_on text COLLATE "C" NOT NULL,
      updated_on text COLLATE "C" NOT NULL,
      deleted_on text COLLATE "C" NOT NULL,
      bytes bigint NOT NULL
    );
    -- Written on every edit, so kept to a heap and two indexes (the SQLite migration says why).
    CREATE TABLE note_revisions (
      note_id text COLLATE "C" NOT NULL,
      edited_on text COLLATE "C" NOT NULL,
      id text COLLATE "C" NOT NULL,
      user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      title text NOT NULL,
      content text NOT NULL,
      tags text[] NOT NULL,
      is_pinned boolean NOT NULL,
      replaced_on text COLLATE "C" NOT NULL,
      bytes bigint NOT NULL,
      PRIMARY KEY (note_id, edited_on, id)
    );
    CREATE INDEX trashed_notes_by_user ON trashed_notes (user_id, deleted_on, id);
    CREATE INDEX trashed_notes_by_age ON trashed_notes (deleted_on);
    CREATE INDEX note_revisions_by_user ON note_revisions (user_id, replaced_on);
    ALTER TABLE account_usage ADD COLUMN kept bigint NOT NULL DEFAULT 0;

    -- The kept bytes, in the account's usage slots as note_changed() keeps the notes'. A row removed as its
    -- account is deleted has no usage to change.
    CREATE FUNCTION kept_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        my_shard smallint := pg_backend_pid() % 16;
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO account_usage AS u VALUES (NEW.user_id, my_shard, 0, 0, NEW.bytes)
            ON CONFLICT (user_id, shard) DO UPDATE SET kept = u.kept + EXCLUDED.kept;
        ELSIF EXISTS (SELECT 1 FROM users WHERE id = OLD.user_id) THEN
          INSERT INTO account_usage AS u VALUES (OLD.user_id, my_shard, 0, 0, -OLD.bytes)
            ON CONFLICT (user_id, shard) DO UPDATE SET kept = u.kept + EXCLUDED.kept;
        END IF;
        RETURN NULL;
      END
    $$;
    CREATE TRIGGER trashed_notes_kept AFTER INSERT OR DELETE ON trashed_notes FOR EACH ROW EXECUTE FUNCTION kept_changed();
    CREATE TRIGGER note_revisions_kept AFTER INSERT OR DELETE ON note_revisions FOR EACH ROW EXECUTE FUNCTION kept_changed();

    -- nextVersion of note-shape.ts: now, or a millisecond past the previous version when the clock has not moved on.
    CREATE FUNCTION next_note_version(previous text, now text) RETURNS text LANGUAGE plpgsql STABLE AS $$
      DECLARE
        after timestamptz;
      BEGIN
        BEGIN
          after := previous::timestamptz + interval '1 millisecond';
        EXCEPTION WHEN others THEN
          RETURN now;
        END;
        IF now::timestamptz >= after THEN
          RETURN now;
        END IF;
        RETURN to_char(after AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
      END
    $$;

    -- Over the byte quota, the oldest of the account's revisions and trashed notes go first (docs/history.md).
    CREATE FUNCTION trim_kept(p_user text, p_max_bytes bigint) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        oldest record;
      BEGIN
        IF p_max_bytes <= 0 THEN
          RETURN;
        END IF;
        LOOP
          EXIT WHEN (SELECT coalesce(sum(bytes) + sum(kept), 0) FROM account_usage WHERE user_id = p_user) <= p_max_bytes;
          SELECT * INTO oldest FROM (
            (SELECT true AS revision, note_id AS id, edited_on, replaced_on AS at FROM note_revisions
              WHERE user_id = p_user ORDER BY replaced_on LIMIT 1)
            UNION ALL
            (SELECT false, id, NULL, deleted_on FROM trashed_notes WHERE user_id = p_user ORDER BY deleted_on, id LIMIT 1)
          ) AS candidates ORDER BY at, id LIMIT 1;
          EXIT WHEN NOT FOUND;
          IF oldest.revision THEN
            DELETE FROM note_revisions WHERE note_id = oldest.id AND edited_on = oldest.edited_on;
          ELSE
            DELETE FROM trashed_notes WHERE id = oldest.id;
            DELETE FROM note_revisions WHERE note_id = oldest.id AND user_id = p_user;
          END IF;
        END LOOP;
      END
    $$;

    -- Keeps a note's state before an edit as its newest revision, then trims to the quota. A note's revisions past
    -- HISTORY_REVISIONS are listed by no answer and erased by the sweep, so that an edit deletes nothing.
    CREATE FUNCTION keep_revision(p_id text, p_user text, p_note text, p_title text, p_content text, p_tags text[],
        p_pinned boolean, p_edited_on text, p_replaced_on text, p_keep integer, p_max_bytes bigint) RETURNS integer
    LANGUAGE plpgsql AS $$
      BEGIN
        IF p_keep <= 0 THEN
          RETURN 0;
        END IF;
        INSERT INTO note_revisions (note_id, edited_on, id, user_id, title, content, tags, is_pinned, replaced_on, bytes)
          VALUES (p_note, p_edited_on, p_id, p_user, p_title, p_content, p_tags, p_pinned, p_replaced_on,
            note_bytes(p_title, p_content, p_tags));
        PERFORM trim_kept(p_user, p_max_bytes);
        RETURN 1;
      END
    $$;
  `,
}
