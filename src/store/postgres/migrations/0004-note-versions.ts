// A version of each user's notes, set by a trigger in the transaction of every change to them (an
// import or an operator's SQL too), so an instance can keep a listing and ask whether it is current
// (docs/caching.md). Values come from a sequence, so none repeats. A user's version is their rows
// joined in shard order; the shard, the writing backend's pid modulo 16, spares writers of one user
// from waiting on one row lock. A row its own transaction has set (xmin) is left alone, so a bulk
// insert writes it once (docs/performance.md, "What shaped the design").
import type { PostgresMigration as Migration } from '../../migrations.js'

export const migration: Migration = {
  version: 4,
  name: 'note-versions',
  sql: `
      CREATE SEQUENCE note_version;

      CREATE TABLE note_versions (
        user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        shard   smallint NOT NULL,
        version bigint NOT NULL,
        PRIMARY KEY (user_id, shard)
      );

      CREATE FUNCTION note_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          DELETE FROM note_versions;
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' THEN
          INSERT INTO note_versions AS v VALUES (OLD.user_id, pg_backend_pid() % 16, nextval('note_version'))
            ON CONFLICT (user_id, shard) DO UPDATE SET version = EXCLUDED.version WHERE v.xmin <> pg_current_xact_id()::xid;
        END IF;
        IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
          INSERT INTO note_versions AS v VALUES (NEW.user_id, pg_backend_pid() % 16, nextval('note_version'))
            ON CONFLICT (user_id, shard) DO UPDATE SET version = EXCLUDED.version WHERE v.xmin <> pg_current_xact_id()::xid;
        END IF;
        RETURN NULL;
      END
      $$;

      CREATE TRIGGER notes_changed AFTER INSERT OR UPDATE OR DELETE ON notes
        FOR EACH ROW EXECUTE FUNCTION note_changed();
      CREATE TRIGGER notes_truncated AFTER TRUNCATE ON notes
        FOR EACH STATEMENT EXECUTE FUNCTION note_changed();

      -- Notes written before this migration: one version per user who has notes.
      INSERT INTO note_versions (user_id, shard, version)
        SELECT user_id, 0, nextval('note_version') FROM notes GROUP BY user_id;
    `,
}
