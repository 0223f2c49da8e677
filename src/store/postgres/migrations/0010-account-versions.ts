// A version of each account (its row and its sessions), set by triggers in the transaction of
// every change, as note_versions is for notes, so the cache layer can keep accounts and sessions
// and ask whether they are current (mirrors SQLite's migration 9). The session trigger only updates
// rows, so it never brings one back. Each change is also announced with the account's id ('' for
// all) for account-notices.ts; NOTIFY is delivered on commit, never on rollback.
import type { PostgresMigration as Migration } from '../../migrations.js'

export const migration: Migration = {
  version: 10,
  name: 'account-versions',
  sql: `
      CREATE SEQUENCE account_version;

      CREATE TABLE account_versions (
        user_id text COLLATE "C" PRIMARY KEY,
        version bigint NOT NULL
      );
      INSERT INTO account_versions SELECT id, nextval('account_version') FROM users;

      CREATE FUNCTION account_changed() RETURNS trigger LANGUAGE plpgsql AS $$
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
      $$;

      CREATE TRIGGER users_versioned AFTER INSERT OR UPDATE OR DELETE ON users
        FOR EACH ROW EXECUTE FUNCTION account_changed();
      CREATE TRIGGER users_versions_truncated AFTER TRUNCATE ON users
        FOR EACH STATEMENT EXECUTE FUNCTION account_changed();
      CREATE TRIGGER sessions_versioned AFTER INSERT OR UPDATE OR DELETE ON sessions
        FOR EACH ROW EXECUTE FUNCTION account_changed();
      CREATE TRIGGER sessions_versions_truncated AFTER TRUNCATE ON sessions
        FOR EACH STATEMENT EXECUTE FUNCTION account_changed();
    `,
}
