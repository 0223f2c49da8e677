// version_clock moves with every change of any user's versions, so that one read of it tells
// the cache layer whether any version read since can have changed (StoreDriver.versionClock).
// Migration 9's trigger for a removed account deleted its versions without moving the clock.
import type { Migration } from '../migrations.js'

export const migration: Migration = {
  version: 11,
  name: 'version-clock-moves-on-account-removal',
  sql: `
      DROP TRIGGER user_versions_user_removed;
      CREATE TRIGGER user_versions_user_removed AFTER DELETE ON users BEGIN
        UPDATE version_clock SET now = now + 1;
        DELETE FROM user_versions WHERE user_id = OLD.id;
      END;
    `,
}
