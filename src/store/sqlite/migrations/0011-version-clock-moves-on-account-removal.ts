// version_clock moves with every change of any user's versions (StoreDriver.versionClock);
// migration 9's trigger for a removed account did not move it.
import type { SqliteMigration as Migration } from '../../migrations.js'

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
