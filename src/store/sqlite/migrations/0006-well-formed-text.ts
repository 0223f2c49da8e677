// Text made valid UTF-8 and email keys recomputed with the NFKC rule (migration-text.ts).
import type { Migration } from '../migrations.js'
import { wellFormedText } from '../migration-text.js'

export const migration: Migration = {
  version: 6,
  name: 'well-formed-text',
  run: wellFormedText,
}
