// Every change to an account is announced on a channel (an empty payload, from TRUNCATE: every
// account), for instances of earlier releases that forget the account they keep. Migration 13
// drops it.
import type { PostgresMigration as Migration } from '../../migrations.js'

export const migration: Migration = {
  version: 3,
  name: 'account-change-notices',
  sql: `
      CREATE FUNCTION notify_account_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'TRUNCATE' THEN
          PERFORM pg_notify('notes_service_accounts', '');
        ELSE
          PERFORM pg_notify('notes_service_accounts', OLD.id);
        END IF;
        RETURN NULL;
      END
      $$;

      CREATE TRIGGER users_changed AFTER UPDATE OR DELETE ON users
        FOR EACH ROW EXECUTE FUNCTION notify_account_change();
      CREATE TRIGGER users_truncated AFTER TRUNCATE ON users
        FOR EACH STATEMENT EXECUTE FUNCTION notify_account_change();
    `,
}
