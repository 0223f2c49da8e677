// Text stored before unpaired surrogates were refused is made valid UTF-8, and every email
// key is recomputed with the NFKC rule; see migration-text.ts.
import type { Migration } from '../migrations.js'
import { wellFormedText } from '../migration-text.js'

export const migration: Migration = {
  version: 6,
  name: 'well-formed-text',
  run: wellFormedText,
}
