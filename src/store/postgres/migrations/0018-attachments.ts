// Attachments (docs/attachments.md): a record per uploaded file and the references notes make to them, as SQLite's
// migration 18 says; here a row's links are found with a regular expression, whatever the account's attachments.
// The bytes of the PostgreSQL blob driver (src/blobs/postgres.ts) live in attachment_blobs and attachment_chunks:
// a blob is readable once its attachment_blobs row is committed, in the transaction that wrote its chunks.
import type { PostgresMigration as Migration } from '../../migrations.js'

const NOW = `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** The triggers of a table whose rows hold a note's text, kind 'n' (note), 't' (trashed note) or 'r' (revision). */
function holderTriggers(table: string, kind: string, noteIdColumn: string): string {
  return `
  CREATE FUNCTION attachment_refs_of_${table}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' AND strpos(OLD.title || OLD.content, '/attachments/') > 0 THEN
        DELETE FROM attachment_refs WHERE holder_kind = '${kind}' AND holder_id = OLD.id;
      END IF;
      IF TG_OP <> 'DELETE' AND strpos(NEW.title || NEW.content, '/attachments/') > 0 THEN
        INSERT INTO attachment_refs (attachment_id, holder_kind, holder_id, note_id)
          SELECT a.id, '${kind}', NEW.id, NEW.${noteIdColumn} FROM attachments a
          WHERE a.user_id = NEW.user_id AND a.id IN (
            SELECT (regexp_matches(NEW.title || ' ' || NEW.content, '/attachments/([0-9a-f]{24})', 'g'))[1])
          ON CONFLICT DO NOTHING;
      END IF;
      RETURN NULL;
    END $$;
  CREATE TRIGGER attachment_refs_of_${table} AFTER INSERT OR UPDATE OF title, content OR DELETE ON ${table}
    FOR EACH ROW EXECUTE FUNCTION attachment_refs_of_${table}();`
}

export const migration: Migration = {
  version: 18,
  name: 'attachments',
  sql: `
    CREATE TABLE attachments (
      id                 text COLLATE "C" PRIMARY KEY,
      user_id            text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name               text NOT NULL,
      type               text NOT NULL,
      size               bigint NOT NULL,
      sha256             text NOT NULL,
      blob_key           text COLLATE "C" NOT NULL UNIQUE,
      created_on         text COLLATE "C" NOT NULL,
      referenced         boolean NOT NULL DEFAULT false,
      unreferenced_since text COLLATE "C"
    );
    CREATE INDEX attachments_by_user ON attachments (user_id, created_on DESC, id DESC);
    CREATE INDEX attachments_unreferenced ON attachments (referenced, unreferenced_since, created_on);

    CREATE TABLE attachment_refs (
      attachment_id text COLLATE "C" NOT NULL REFERENCES attachments(id) ON DELETE CASCADE,
      holder_kind   text COLLATE "C" NOT NULL,
      holder_id     text COLLATE "C" NOT NULL,
      note_id       text COLLATE "C" NOT NULL,
      PRIMARY KEY (attachment_id, holder_kind, holder_id)
    );
    CREATE INDEX attachment_refs_by_holder ON attachment_refs (holder_kind, holder_id);

    CREATE FUNCTION attachment_reference_counts() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE attachments SET referenced = true, unreferenced_since = NULL
            WHERE id = NEW.attachment_id AND (NOT referenced OR unreferenced_since IS NOT NULL);
        ELSIF NOT EXISTS (SELECT 1 FROM attachment_refs WHERE attachment_id = OLD.attachment_id) THEN
          UPDATE attachments SET unreferenced_since = ${NOW} WHERE id = OLD.attachment_id;
        END IF;
        RETURN NULL;
      END $$;
    CREATE TRIGGER attachment_reference_counts AFTER INSERT OR DELETE ON attachment_refs
      FOR EACH ROW EXECUTE FUNCTION attachment_reference_counts();
    ${holderTriggers('notes', 'n', 'id')}
    ${holderTriggers('trashed_notes', 't', 'id')}
    ${holderTriggers('note_revisions', 'r', 'note_id')}

    CREATE TABLE attachment_blobs (
      key        text COLLATE "C" PRIMARY KEY,
      size       bigint NOT NULL,
      sha256     text NOT NULL,
      written_on timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE attachment_chunks (
      key  text COLLATE "C" NOT NULL,
      seq  integer NOT NULL,
      data bytea NOT NULL,
      PRIMARY KEY (key, seq)
    );
  `,
}
