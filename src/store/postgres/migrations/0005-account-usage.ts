// Each account's note count and size (note_bytes: the UTF-8 bytes of title, content and tags as
// stored), in rows sharded as note_versions, kept by migration 4's trigger function, replaced to do
// both, as one trigger costs less than two (docs/security.md, "What one account may keep").
// note_quota_check takes the account's slot for its backend, then reads the sums, each PL/pgSQL
// statement in a new snapshot; on 'retry' the caller takes all 16 slots, for exact sums.
// The SHARE lock on notes holds off writes until the backfill commits.
import type { PostgresMigration as Migration } from '../../migrations.js'

export const migration: Migration = {
  version: 5,
  name: 'account-usage',
  sql: `
      LOCK TABLE notes IN SHARE MODE;

      CREATE FUNCTION note_bytes(title text, content text, tags text[]) RETURNS bigint
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT octet_length(title)::bigint + octet_length(content) + octet_length(array_to_string(tags, '')) $$;

      CREATE TABLE account_usage (
        user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        shard   smallint NOT NULL,
        notes   bigint NOT NULL,
        bytes   bigint NOT NULL,
        PRIMARY KEY (user_id, shard)
      );

      CREATE OR REPLACE FUNCTION note_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        my_shard smallint := pg_backend_pid() % 16;
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          DELETE FROM note_versions;
          DELETE FROM account_usage;
          RETURN NULL;
        END IF;
        -- The notes' version (migration 4).
        IF TG_OP <> 'INSERT' THEN
          INSERT INTO note_versions AS v VALUES (OLD.user_id, my_shard, nextval('note_version'))
            ON CONFLICT (user_id, shard) DO UPDATE SET version = EXCLUDED.version WHERE v.xmin <> pg_current_xact_id()::xid;
        END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
          INSERT INTO note_versions AS v VALUES (NEW.user_id, my_shard, nextval('note_version'))
            ON CONFLICT (user_id, shard) DO UPDATE SET version = EXCLUDED.version WHERE v.xmin <> pg_current_xact_id()::xid;
        END IF;
        -- The account's usage.
        IF TG_OP = 'UPDATE' AND NEW.user_id = OLD.user_id THEN
          IF NEW.title IS DISTINCT FROM OLD.title OR NEW.content IS DISTINCT FROM OLD.content OR NEW.tags IS DISTINCT FROM OLD.tags THEN
            INSERT INTO account_usage AS u VALUES (NEW.user_id, my_shard, 0,
                note_bytes(NEW.title, NEW.content, NEW.tags) - note_bytes(OLD.title, OLD.content, OLD.tags))
              ON CONFLICT (user_id, shard) DO UPDATE SET bytes = u.bytes + EXCLUDED.bytes;
          END IF;
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' THEN
          INSERT INTO account_usage AS u VALUES (OLD.user_id, my_shard, -1, -note_bytes(OLD.title, OLD.content, OLD.tags))
            ON CONFLICT (user_id, shard) DO UPDATE SET notes = u.notes + EXCLUDED.notes, bytes = u.bytes + EXCLUDED.bytes;
        END IF;
        IF TG_OP <> 'DELETE' THEN
          INSERT INTO account_usage AS u VALUES (NEW.user_id, my_shard, 1, note_bytes(NEW.title, NEW.content, NEW.tags))
            ON CONFLICT (user_id, shard) DO UPDATE SET notes = u.notes + EXCLUDED.notes, bytes = u.bytes + EXCLUDED.bytes;
        END IF;
        RETURN NULL;
      END
      $$;

      -- 'pass', 'retry' (one slot, near a limit), 'notes' or 'bytes' (the limit met), or
      -- 'missing' (the edited note is not the account's). p_note NULL: an insert of a note of
      -- p_title, p_content and p_tags; otherwise an edit of p_note with those (NULL: unchanged).
      CREATE FUNCTION note_quota_check(p_user text, p_note text, p_title text, p_content text, p_tags text[],
                                       p_exclusive boolean, p_max_notes bigint, p_max_bytes bigint, p_bound bigint)
        RETURNS text LANGUAGE plpgsql AS $$
      DECLARE
        account int := hashtext(p_user);
        adds int := CASE WHEN p_note IS NULL THEN 1 ELSE 0 END;
        grows bigint;
        used_notes bigint;
        used_bytes bigint;
      BEGIN
        IF p_exclusive THEN
          FOR slot IN 0..15 LOOP
            PERFORM pg_advisory_xact_lock(account, slot);
          END LOOP;
        ELSE
          PERFORM pg_advisory_xact_lock(account, pg_backend_pid() % 16);
        END IF;
        IF p_note IS NULL THEN
          grows := note_bytes(p_title, p_content, p_tags);
        ELSE
          SELECT note_bytes(COALESCE(p_title, title), COALESCE(p_content, content), COALESCE(p_tags, tags))
                 - note_bytes(title, content, tags)
            INTO grows FROM notes WHERE user_id = p_user AND id = p_note;
          IF NOT FOUND THEN
            RETURN 'missing';
          ELSIF grows <= 0 THEN
            RETURN 'pass';
          END IF;
        END IF;
        SELECT coalesce(sum(notes), 0), coalesce(sum(bytes), 0) INTO used_notes, used_bytes
          FROM account_usage WHERE user_id = p_user;
        IF p_exclusive THEN
          IF adds > 0 AND used_notes + adds > p_max_notes THEN
            RETURN 'notes';
          ELSIF used_bytes + grows > p_max_bytes THEN
            RETURN 'bytes';
          END IF;
          RETURN 'pass';
        ELSIF (adds = 0 OR used_notes + 16 <= p_max_notes) AND used_bytes + 16 * p_bound <= p_max_bytes THEN
          RETURN 'pass';
        END IF;
        RETURN 'retry';
      END
      $$;

      INSERT INTO account_usage (user_id, shard, notes, bytes)
        SELECT user_id, 0, count(*), sum(note_bytes(title, content, tags)) FROM notes GROUP BY user_id;
    `,
}
