// Migration 3's notices on 'notes_service_accounts' are heard by no instance: every release since
// migration 10 listens to that migration's channel, 'notes_service_account_versions'
// (account-notices.ts), and the releases that listened to the old one predate it. Yet each
// update or deletion of an account sends one. Its triggers and their function go; migration
// 10's notices, and everything else, stay.
import type { Migration } from '../migrations.js'

export const migration: Migration = {
  version: 13,
  name: 'drop-account-change-notices',
  sql: `
    DROP TRIGGER users_changed ON users;
    DROP TRIGGER users_truncated ON users;
    DROP FUNCTION notify_account_change();
  `,
}
