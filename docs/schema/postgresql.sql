-- The schema of a fresh PostgreSQL database after every migration, as test/support/schema-text.ts
-- writes it. Not run by anything: written by
--   UPDATE_SCHEMA_SNAPSHOT=1 node --import tsx --test test/schema-snapshot.test.ts
-- and checked by the same test without the variable.

-- table account_usage
(
  user_id text COLLATE "C" NOT NULL,
  shard smallint NOT NULL,
  notes bigint NOT NULL,
  bytes bigint NOT NULL,
  kept bigint NOT NULL DEFAULT 0
)

-- table account_versions
(
  user_id text COLLATE "C" NOT NULL,
  version bigint NOT NULL
)

-- table attachment_blobs
(
  key text COLLATE "C" NOT NULL,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  written_on timestamp with time zone NOT NULL DEFAULT now()
)

-- table attachment_chunks
(
  key text COLLATE "C" NOT NULL,
  seq integer NOT NULL,
  data bytea NOT NULL
)

-- table attachment_refs
(
  attachment_id text COLLATE "C" NOT NULL,
  holder_kind text COLLATE "C" NOT NULL,
  holder_id text COLLATE "C" NOT NULL,
  note_id text COLLATE "C" NOT NULL
)

-- table attachments
(
  id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  name text NOT NULL,
  type text NOT NULL,
  size bigint NOT NULL,
  sha256 text NOT NULL,
  blob_key text COLLATE "C" NOT NULL,
  created_on text COLLATE "C" NOT NULL,
  referenced boolean NOT NULL DEFAULT false,
  unreferenced_since text COLLATE "C"
)

-- table note_changes
(
  user_id text COLLATE "C" NOT NULL,
  note_id text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  changed_on text COLLATE "C" NOT NULL
)

-- table note_feeds
(
  user_id text COLLATE "C" NOT NULL,
  epoch text NOT NULL,
  floor bigint NOT NULL
)

-- table note_revisions
(
  note_id text COLLATE "C" NOT NULL,
  edited_on text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  title text NOT NULL,
  content text NOT NULL,
  tags text[] NOT NULL,
  is_pinned boolean NOT NULL,
  replaced_on text COLLATE "C" NOT NULL,
  bytes bigint NOT NULL
)

-- table note_versions
(
  user_id text COLLATE "C" NOT NULL,
  shard smallint NOT NULL,
  version bigint NOT NULL
)

-- table notes
(
  id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  title text NOT NULL,
  content text NOT NULL,
  tags text[] NOT NULL,
  is_pinned boolean NOT NULL DEFAULT false,
  created_on text COLLATE "C" NOT NULL,
  updated_on text COLLATE "C" NOT NULL,
  json text NOT NULL GENERATED ALWAYS AS (note_json(id, title, content, tags, is_pinned, user_id, created_on, updated_on)) STORED,
  change_seq bigint NOT NULL
)

-- table schema_changes
(
  number integer NOT NULL,
  name text NOT NULL,
  applied_on text NOT NULL
)

-- table schema_migrations
(
  version integer NOT NULL,
  name text NOT NULL,
  applied_on text NOT NULL
)

-- table sessions
(
  id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  created_on text COLLATE "C" NOT NULL,
  last_used_on text COLLATE "C" NOT NULL,
  client text NOT NULL
)

-- table trashed_notes
(
  id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  title text NOT NULL,
  content text NOT NULL,
  tags text[] NOT NULL,
  is_pinned boolean NOT NULL,
  created_on text COLLATE "C" NOT NULL,
  updated_on text COLLATE "C" NOT NULL,
  deleted_on text COLLATE "C" NOT NULL,
  bytes bigint NOT NULL
)

-- table users
(
  id text COLLATE "C" NOT NULL,
  full_name text NOT NULL,
  email text NOT NULL,
  email_key text COLLATE "C" NOT NULL,
  password_hash text NOT NULL,
  created_on text COLLATE "C" NOT NULL,
  tokens_not_before text COLLATE "C"
)

-- constraint account_usage.account_usage_pkey
PRIMARY KEY (user_id, shard)

-- constraint account_usage.account_usage_user_id_fkey
FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE

-- constraint account_versions.account_versions_pkey
PRIMARY KEY (user_id)

-- constraint attachment_blobs.attachment_blobs_pkey
PRIMARY KEY (key)

-- constraint attachment_chunks.attachment_chunks_pkey
PRIMARY KEY (key, seq)

-- constraint attachment_refs.attachment_refs_attachment_id_fkey
FOREIGN KEY (attachment_id) REFERENCES attachments(id) ON DELETE CASCADE

-- constraint attachment_refs.attachment_refs_pkey
PRIMARY KEY (attachment_id, holder_kind, holder_id)

-- constraint attachments.attachments_blob_key_key
UNIQUE (blob_key)

-- constraint attachments.attachments_pkey
PRIMARY KEY (id)

-- constraint attachments.attachments_user_id_fkey
FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE

-- constraint note_changes.note_changes_pkey
PRIMARY KEY (user_id, note_id)

-- constraint note_changes.note_changes_user_id_fkey
FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE

-- constraint note_feeds.note_feeds_pkey
PRIMARY KEY (user_id)

-- constraint note_feeds.note_feeds_user_id_fkey
FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE

-- constraint note_revisions.note_revisions_pkey
PRIMARY KEY (note_id, edited_on, id)

-- constraint note_revisions.note_revisions_user_id_fkey
FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE

-- constraint note_versions.note_versions_pkey
PRIMARY KEY (user_id, shard)

-- constraint note_versions.note_versions_user_id_fkey
FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE

-- constraint notes.notes_pkey
PRIMARY KEY (id)

-- constraint notes.notes_user_id_fkey
FOREIGN KEY (user_id) REFERENCES users(id)

-- constraint schema_changes.schema_changes_pkey
PRIMARY KEY (number)

-- constraint schema_migrations.schema_migrations_pkey
PRIMARY KEY (version)

-- constraint sessions.sessions_pkey
PRIMARY KEY (id)

-- constraint sessions.sessions_user_id_fkey
FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE

-- constraint trashed_notes.trashed_notes_pkey
PRIMARY KEY (id)

-- constraint trashed_notes.trashed_notes_user_id_fkey
FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE

-- constraint users.users_email_key_key
UNIQUE (email_key)

-- constraint users.users_pkey
PRIMARY KEY (id)

-- index account_usage_pkey
CREATE UNIQUE INDEX account_usage_pkey ON public.account_usage USING btree (user_id, shard)

-- index account_versions_pkey
CREATE UNIQUE INDEX account_versions_pkey ON public.account_versions USING btree (user_id)

-- index attachment_blobs_pkey
CREATE UNIQUE INDEX attachment_blobs_pkey ON public.attachment_blobs USING btree (key)

-- index attachment_chunks_pkey
CREATE UNIQUE INDEX attachment_chunks_pkey ON public.attachment_chunks USING btree (key, seq)

-- index attachment_refs_by_holder
CREATE INDEX attachment_refs_by_holder ON public.attachment_refs USING btree (holder_kind, holder_id)

-- index attachment_refs_pkey
CREATE UNIQUE INDEX attachment_refs_pkey ON public.attachment_refs USING btree (attachment_id, holder_kind, holder_id)

-- index attachments_blob_key_key
CREATE UNIQUE INDEX attachments_blob_key_key ON public.attachments USING btree (blob_key)

-- index attachments_by_user
CREATE INDEX attachments_by_user ON public.attachments USING btree (user_id, created_on DESC, id DESC)

-- index attachments_pkey
CREATE UNIQUE INDEX attachments_pkey ON public.attachments USING btree (id)

-- index attachments_unreferenced
CREATE INDEX attachments_unreferenced ON public.attachments USING btree (referenced, unreferenced_since, created_on)

-- index note_changes_by_age
CREATE INDEX note_changes_by_age ON public.note_changes USING btree (changed_on)

-- index note_changes_in_order
CREATE UNIQUE INDEX note_changes_in_order ON public.note_changes USING btree (user_id, seq)

-- index note_changes_pkey
CREATE UNIQUE INDEX note_changes_pkey ON public.note_changes USING btree (user_id, note_id)

-- index note_feeds_pkey
CREATE UNIQUE INDEX note_feeds_pkey ON public.note_feeds USING btree (user_id)

-- index note_revisions_by_user
CREATE INDEX note_revisions_by_user ON public.note_revisions USING btree (user_id, replaced_on)

-- index note_revisions_pkey
CREATE UNIQUE INDEX note_revisions_pkey ON public.note_revisions USING btree (note_id, edited_on, id)

-- index note_versions_pkey
CREATE UNIQUE INDEX note_versions_pkey ON public.note_versions USING btree (user_id, shard)

-- index notes_by_user_in_list_order
CREATE INDEX notes_by_user_in_list_order ON public.notes USING btree (user_id, is_pinned DESC, created_on DESC, id DESC)

-- index notes_in_feed_order
CREATE INDEX notes_in_feed_order ON public.notes USING btree (user_id, change_seq)

-- index notes_pkey
CREATE UNIQUE INDEX notes_pkey ON public.notes USING btree (id)

-- index schema_changes_pkey
CREATE UNIQUE INDEX schema_changes_pkey ON public.schema_changes USING btree (number)

-- index schema_migrations_pkey
CREATE UNIQUE INDEX schema_migrations_pkey ON public.schema_migrations USING btree (version)

-- index sessions_by_user
CREATE INDEX sessions_by_user ON public.sessions USING btree (user_id, last_used_on DESC, created_on DESC, id DESC)

-- index sessions_pkey
CREATE UNIQUE INDEX sessions_pkey ON public.sessions USING btree (id)

-- index trashed_notes_by_age
CREATE INDEX trashed_notes_by_age ON public.trashed_notes USING btree (deleted_on)

-- index trashed_notes_by_user
CREATE INDEX trashed_notes_by_user ON public.trashed_notes USING btree (user_id, deleted_on, id)

-- index trashed_notes_pkey
CREATE UNIQUE INDEX trashed_notes_pkey ON public.trashed_notes USING btree (id)

-- index users_email_key_key
CREATE UNIQUE INDEX users_email_key_key ON public.users USING btree (email_key)

-- index users_pkey
CREATE UNIQUE INDEX users_pkey ON public.users USING btree (id)

-- sequence account_version
bigint start 1 increment 1

-- sequence note_change
bigint start 1 increment 1

-- sequence note_version
bigint start 1 increment 1

-- trigger attachment_refs.attachment_reference_counts
CREATE TRIGGER attachment_reference_counts AFTER INSERT OR DELETE ON public.attachment_refs FOR EACH ROW EXECUTE FUNCTION attachment_reference_counts()

-- trigger note_revisions.attachment_refs_of_note_revisions
CREATE TRIGGER attachment_refs_of_note_revisions AFTER INSERT OR DELETE OR UPDATE OF title, content ON public.note_revisions FOR EACH ROW EXECUTE FUNCTION attachment_refs_of_note_revisions()

-- trigger note_revisions.note_revisions_kept
CREATE TRIGGER note_revisions_kept AFTER INSERT OR DELETE ON public.note_revisions FOR EACH ROW EXECUTE FUNCTION kept_changed()

-- trigger notes.attachment_refs_of_notes
CREATE TRIGGER attachment_refs_of_notes AFTER INSERT OR DELETE OR UPDATE OF title, content ON public.notes FOR EACH ROW EXECUTE FUNCTION attachment_refs_of_notes()

-- trigger notes.notes_changed
CREATE TRIGGER notes_changed AFTER INSERT OR DELETE OR UPDATE ON public.notes FOR EACH ROW EXECUTE FUNCTION note_changed()

-- trigger notes.notes_in_feed_truncated
CREATE TRIGGER notes_in_feed_truncated AFTER TRUNCATE ON public.notes FOR EACH STATEMENT EXECUTE FUNCTION note_feed_changed()

-- trigger notes.notes_moved_from_feed
CREATE TRIGGER notes_moved_from_feed AFTER UPDATE OF user_id ON public.notes FOR EACH ROW WHEN ((old.user_id IS DISTINCT FROM new.user_id)) EXECUTE FUNCTION note_feed_changed()

-- trigger notes.notes_numbered
CREATE TRIGGER notes_numbered BEFORE INSERT OR UPDATE ON public.notes FOR EACH ROW EXECUTE FUNCTION number_note_change()

-- trigger notes.notes_removed_from_feed
CREATE TRIGGER notes_removed_from_feed AFTER DELETE ON public.notes FOR EACH ROW EXECUTE FUNCTION note_feed_changed()

-- trigger notes.notes_truncated
CREATE TRIGGER notes_truncated AFTER TRUNCATE ON public.notes FOR EACH STATEMENT EXECUTE FUNCTION note_changed()

-- trigger sessions.sessions_versioned
CREATE TRIGGER sessions_versioned AFTER INSERT OR DELETE OR UPDATE ON public.sessions FOR EACH ROW EXECUTE FUNCTION account_changed()

-- trigger sessions.sessions_versions_truncated
CREATE TRIGGER sessions_versions_truncated AFTER TRUNCATE ON public.sessions FOR EACH STATEMENT EXECUTE FUNCTION account_changed()

-- trigger trashed_notes.attachment_refs_of_trashed_notes
CREATE TRIGGER attachment_refs_of_trashed_notes AFTER INSERT OR DELETE OR UPDATE OF title, content ON public.trashed_notes FOR EACH ROW EXECUTE FUNCTION attachment_refs_of_trashed_notes()

-- trigger trashed_notes.trashed_notes_kept
CREATE TRIGGER trashed_notes_kept AFTER INSERT OR DELETE ON public.trashed_notes FOR EACH ROW EXECUTE FUNCTION kept_changed()

-- trigger users.note_feed_of_new_user
CREATE TRIGGER note_feed_of_new_user AFTER INSERT ON public.users FOR EACH ROW EXECUTE FUNCTION new_note_feed()

-- trigger users.users_versioned
CREATE TRIGGER users_versioned AFTER INSERT OR DELETE OR UPDATE ON public.users FOR EACH ROW EXECUTE FUNCTION account_changed()

-- trigger users.users_versions_truncated
CREATE TRIGGER users_versions_truncated AFTER TRUNCATE ON public.users FOR EACH STATEMENT EXECUTE FUNCTION account_changed()

-- function account_changed()
CREATE OR REPLACE FUNCTION public.account_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          PERFORM pg_notify('notes_service_account_versions', '');
          IF TG_TABLE_NAME = 'users' THEN
            DELETE FROM account_versions;
          ELSE
            UPDATE account_versions SET version = nextval('account_version');
          END IF;
          RETURN NULL;
        END IF;
        -- OLD and NEW are read only in the branch of their table: a record has only its own fields.
        IF TG_TABLE_NAME = 'users' THEN
          IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND NEW.id IS DISTINCT FROM OLD.id) THEN
            DELETE FROM account_versions WHERE user_id = OLD.id;
            PERFORM pg_notify('notes_service_account_versions', OLD.id);
          END IF;
          IF TG_OP <> 'DELETE' THEN
            INSERT INTO account_versions AS v VALUES (NEW.id, nextval('account_version'))
              ON CONFLICT (user_id) DO UPDATE SET version = EXCLUDED.version;
            PERFORM pg_notify('notes_service_account_versions', NEW.id);
          END IF;
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' THEN
          UPDATE account_versions SET version = nextval('account_version') WHERE user_id = OLD.user_id;
          PERFORM pg_notify('notes_service_account_versions', OLD.user_id);
        END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
          UPDATE account_versions SET version = nextval('account_version') WHERE user_id = NEW.user_id;
          PERFORM pg_notify('notes_service_account_versions', NEW.user_id);
        END IF;
        RETURN NULL;
      END
      $function$

-- function attachment_reference_counts()
CREATE OR REPLACE FUNCTION public.attachment_reference_counts()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE attachments SET referenced = true, unreferenced_since = NULL
            WHERE id = NEW.attachment_id AND (NOT referenced OR unreferenced_since IS NOT NULL);
        ELSIF NOT EXISTS (SELECT 1 FROM attachment_refs WHERE attachment_id = OLD.attachment_id) THEN
          UPDATE attachments SET unreferenced_since = to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') WHERE id = OLD.attachment_id;
        END IF;
        RETURN NULL;
      END $function$

-- function attachment_refs_of_note_revisions()
CREATE OR REPLACE FUNCTION public.attachment_refs_of_note_revisions()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      IF TG_OP <> 'INSERT' AND strpos(OLD.title || OLD.content, '/attachments/') > 0 THEN
        DELETE FROM attachment_refs WHERE holder_kind = 'r' AND holder_id = OLD.id;
      END IF;
      IF TG_OP <> 'DELETE' AND strpos(NEW.title || NEW.content, '/attachments/') > 0 THEN
        INSERT INTO attachment_refs (attachment_id, holder_kind, holder_id, note_id)
          SELECT a.id, 'r', NEW.id, NEW.note_id FROM attachments a
          WHERE a.user_id = NEW.user_id AND a.id IN (
            SELECT (regexp_matches(NEW.title || ' ' || NEW.content, '/attachments/([0-9a-f]{24})', 'g'))[1])
          ON CONFLICT DO NOTHING;
      END IF;
      RETURN NULL;
    END $function$

-- function attachment_refs_of_notes()
CREATE OR REPLACE FUNCTION public.attachment_refs_of_notes()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      IF TG_OP <> 'INSERT' AND strpos(OLD.title || OLD.content, '/attachments/') > 0 THEN
        DELETE FROM attachment_refs WHERE holder_kind = 'n' AND holder_id = OLD.id;
      END IF;
      IF TG_OP <> 'DELETE' AND strpos(NEW.title || NEW.content, '/attachments/') > 0 THEN
        INSERT INTO attachment_refs (attachment_id, holder_kind, holder_id, note_id)
          SELECT a.id, 'n', NEW.id, NEW.id FROM attachments a
          WHERE a.user_id = NEW.user_id AND a.id IN (
            SELECT (regexp_matches(NEW.title || ' ' || NEW.content, '/attachments/([0-9a-f]{24})', 'g'))[1])
          ON CONFLICT DO NOTHING;
      END IF;
      RETURN NULL;
    END $function$

-- function attachment_refs_of_trashed_notes()
CREATE OR REPLACE FUNCTION public.attachment_refs_of_trashed_notes()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    BEGIN
      IF TG_OP <> 'INSERT' AND strpos(OLD.title || OLD.content, '/attachments/') > 0 THEN
        DELETE FROM attachment_refs WHERE holder_kind = 't' AND holder_id = OLD.id;
      END IF;
      IF TG_OP <> 'DELETE' AND strpos(NEW.title || NEW.content, '/attachments/') > 0 THEN
        INSERT INTO attachment_refs (attachment_id, holder_kind, holder_id, note_id)
          SELECT a.id, 't', NEW.id, NEW.id FROM attachments a
          WHERE a.user_id = NEW.user_id AND a.id IN (
            SELECT (regexp_matches(NEW.title || ' ' || NEW.content, '/attachments/([0-9a-f]{24})', 'g'))[1])
          ON CONFLICT DO NOTHING;
      END IF;
      RETURN NULL;
    END $function$

-- function feed_page(owner text, after bigint, most integer, live_only boolean)
CREATE OR REPLACE FUNCTION public.feed_page(owner text, after bigint, most integer, live_only boolean)
 RETURNS TABLE(locked boolean, epoch text, floor bigint, head bigint, seq bigint, note_id text, json text)
 LANGUAGE plpgsql
AS $function$
      BEGIN
        IF NOT pg_try_advisory_xact_lock(15, hashtext(owner)) THEN
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
    $function$

-- function keep_revision(p_id text, p_user text, p_note text, p_title text, p_content text, p_tags text[], p_pinned boolean, p_edited_on text, p_replaced_on text, p_keep integer, p_max_bytes bigint)
CREATE OR REPLACE FUNCTION public.keep_revision(p_id text, p_user text, p_note text, p_title text, p_content text, p_tags text[], p_pinned boolean, p_edited_on text, p_replaced_on text, p_keep integer, p_max_bytes bigint)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
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
    $function$

-- function kept_changed()
CREATE OR REPLACE FUNCTION public.kept_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
    $function$

-- function new_note_feed()
CREATE OR REPLACE FUNCTION public.new_note_feed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        INSERT INTO note_feeds VALUES (NEW.id, substr(md5(random()::text || NEW.id), 1, 16), 0);
        RETURN NULL;
      END
    $function$

-- function next_note_version(previous text, now text)
CREATE OR REPLACE FUNCTION public.next_note_version(previous text, now text)
 RETURNS text
 LANGUAGE plpgsql
 STABLE
AS $function$
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
    $function$

-- function note_bytes(title text, content text, tags text[])
CREATE OR REPLACE FUNCTION public.note_bytes(title text, content text, tags text[])
 RETURNS bigint
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$ SELECT octet_length(title)::bigint + octet_length(content) + octet_length(array_to_string(tags, '')) $function$

-- function note_changed()
CREATE OR REPLACE FUNCTION public.note_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
      $function$

-- function note_feed_changed()
CREATE OR REPLACE FUNCTION public.note_feed_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
        PERFORM pg_advisory_xact_lock_shared(15, hashtext(OLD.user_id));
        INSERT INTO note_changes AS c
          VALUES (OLD.user_id, OLD.id, nextval('note_change'),
                  to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
          ON CONFLICT (user_id, note_id) DO UPDATE SET seq = EXCLUDED.seq, changed_on = EXCLUDED.changed_on;
        RETURN NULL;
      END
    $function$

-- function note_json(id text, title text, content text, tags text[], is_pinned boolean, user_id text, created_on text, updated_on text)
CREATE OR REPLACE FUNCTION public.note_json(id text, title text, content text, tags text[], is_pinned boolean, user_id text, created_on text, updated_on text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
AS $function$
          SELECT '{"_id":' || to_json(id) || ',"title":' || to_json(title) || ',"content":' || to_json(content)
            || ',"tags":' || array_to_json(tags) || ',"isPinned":' || CASE WHEN is_pinned THEN 'true' ELSE 'false' END
            || ',"userId":' || to_json(user_id) || ',"createdOn":' || to_json(created_on)
            || ',"updatedOn":' || to_json(updated_on) || '}'
        $function$

-- function note_quota_check(p_user text, p_note text, p_title text, p_content text, p_tags text[], p_exclusive boolean, p_max_notes bigint, p_max_bytes bigint, p_bound bigint)
CREATE OR REPLACE FUNCTION public.note_quota_check(p_user text, p_note text, p_title text, p_content text, p_tags text[], p_exclusive boolean, p_max_notes bigint, p_max_bytes bigint, p_bound bigint)
 RETURNS text
 LANGUAGE plpgsql
AS $function$
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
      $function$

-- function number_note_change()
CREATE OR REPLACE FUNCTION public.number_note_change()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        PERFORM pg_advisory_xact_lock_shared(15, hashtext(NEW.user_id));
        NEW.change_seq := nextval('note_change');
        IF TG_OP = 'INSERT' OR NEW.user_id IS DISTINCT FROM OLD.user_id THEN
          DELETE FROM note_changes WHERE user_id = NEW.user_id AND note_id = NEW.id;
        END IF;
        RETURN NEW;
      END
    $function$

-- function trim_kept(p_user text, p_max_bytes bigint)
CREATE OR REPLACE FUNCTION public.trim_kept(p_user text, p_max_bytes bigint)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
    $function$
