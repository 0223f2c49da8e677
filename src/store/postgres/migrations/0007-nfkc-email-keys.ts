// Every email key recomputed with the NFKC rule; see migration-email-keys.ts.
import type { PostgresMigration as Migration } from '../../migrations.js'
import { nfkcEmailKeys } from '../migration-email-keys.js'

export const migration: Migration = {
  version: 7,
  name: 'nfkc-email-keys',
  run: nfkcEmailKeys,
}
