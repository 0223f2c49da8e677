// No release since migration 10 listens to migration 3's notices (account-notices.ts listens on
// migration 10's channel), yet every update or deletion of an account sends one.
import type { PostgresMigration as Migration } from '../../migrations.js'

export const migration: Migration = {
  version: 13,
  name: 'drop-account-change-notices',
  sql: `
    DROP TRIGGER users_changed ON users;
    DROP TRIGGER users_truncated ON users;
    DROP FUNCTION notify_account_change();
  `,
}
