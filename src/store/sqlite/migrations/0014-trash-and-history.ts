// The trash and the revision history (docs/history.md): a deleted note moves to trashed_notes, the state before a
// change of a note's text to note_revisions. Each row keeps its size, and account_usage.kept their sum, so the
// byte quota's trimming (trash-history.ts) reads one row. A revision is written on every edit, so its table has only the
// indexes it needs: a note's history as one range, and an account's revisions by age (the quota and the sweep). It
// keeps its rowid: WITHOUT ROWID would move any revision over about 1 000 bytes to an overflow page of its own.
import type { SqliteMigration as Migration } from '../../migrations.js'

const KEPT_INDEXES = `
  CREATE INDEX trashed_notes_by_user ON trashed_notes (user_id, deleted_on, id);
  CREATE INDEX trashed_notes_by_age ON trashed_notes (deleted_on);
  CREATE UNIQUE INDEX note_revisions_of_note ON note_revisions (note_id, edited_on, id);
  CREATE INDEX note_revisions_by_user ON note_revisions (user_id, replaced_on);`

const keptTriggers = (table: string) => `
  CREATE TRIGGER account_usage_${table}_added AFTER INSERT ON ${table} BEGIN
    UPDATE account_usage SET kept = kept + NEW.bytes WHERE user_id = NEW.user_id;
  END;
  CREATE TRIGGER account_usage_${table}_removed AFTER DELETE ON ${table} BEGIN
    UPDATE account_usage SET kept = kept - OLD.bytes WHERE user_id = OLD.user_id;
  END;`

export const migration: Migration = {
  version: 14,
  name: 'trash-and-history',
  sql: `
    CREATE TABLE trashed_notes (
      id         TEXT PRIMARY KEY,
      user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      title      TEXT NOT NULL,
      content    TEXT NOT NULL,
      tags       TEXT NOT NULL, -- JSON array of strings
      is_pinned  INTEGER NOT NULL,
      created_on TEXT NOT NULL,
      updated_on TEXT NOT NULL,
      deleted_on TEXT NOT NULL,
      bytes      INTEGER NOT NULL
    ) STRICT;
    CREATE TABLE note_revisions (
      note_id     TEXT NOT NULL,
      edited_on   TEXT NOT NULL,
      id          TEXT NOT NULL,
      user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      title       TEXT NOT NULL,
      content     TEXT NOT NULL,
      tags        TEXT NOT NULL, -- JSON array of strings
      is_pinned   INTEGER NOT NULL,
      replaced_on TEXT NOT NULL,
      bytes       INTEGER NOT NULL
    ) STRICT;
    ${KEPT_INDEXES}
    ALTER TABLE account_usage ADD COLUMN kept INTEGER NOT NULL DEFAULT 0;
    ${keptTriggers('trashed_notes')}
    ${keptTriggers('note_revisions')}
  `,
}
