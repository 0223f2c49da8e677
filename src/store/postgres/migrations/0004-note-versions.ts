// A version of each user's notes, changed in the same transaction as every change to them
// (a trigger, so an operator's SQL and an import count too), so that an instance can keep a
// listing in memory and ask, with one small query at the time of each request, whether it
// is still current (src/store/cache). Unlike a notice, the answer is never late.
//
// Each value comes from a sequence, so no version repeats, even after TRUNCATE. A user's
// version is all their rows' values joined in shard order. The shard is the writing
// backend's pid modulo 16: a backend runs one transaction at a time, so writers of the same
// user rarely wait for each other's row lock until commit (with one row per user, concurrent
// writes of one user would commit one by one). Rows go when their account goes (ON DELETE
// CASCADE); TRUNCATE of notes deletes them all, and a user without rows is never answered
// from memory.
//
// A row trigger, not a statement trigger with transition tables, which costs edit-note far
// more of its rate (docs/performance.md, "What shaped the design"). A row this transaction has
// already set is left alone (its xmin is this transaction's id): every change of the
// transaction becomes visible at once, with that version, and a bulk insert of a user's
// notes writes their row once instead of once per note, which spares an import most of the
// trigger's cost.
import type { Migration } from '../migrations.js'

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
