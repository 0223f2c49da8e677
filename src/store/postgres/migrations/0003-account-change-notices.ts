// Every change to an account (an update, a deletion, TRUNCATE) is announced on a channel, on
// which instances of earlier releases forget the account they keep. This release checks
// migration 10's account versions instead and listens to nothing; the notices stay for an
// earlier instance still running during a rolling upgrade. NOTIFY is delivered when the
// transaction commits, never for one that rolls back
// (https://www.postgresql.org/docs/current/sql-notify.html). An empty payload (TRUNCATE,
// which has no rows) means "every account". No release listens to them any more: migration 13
// drops them.
import type { Migration } from '../migrations.js'

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
