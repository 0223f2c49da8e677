// Each note keeps its wire JSON, computed by SQLite on every write, so a listing joins stored text
// (docs/performance.md). SQLite cannot add a STORED column, so the table is rebuilt; its columns
// are written out again, not shared with migration 1, whose text must never change.
import type { SqliteMigration as Migration } from '../../migrations.js'

export const migration: Migration = {
  version: 2,
  name: 'note-json',
  sql: `
      CREATE TABLE notes_with_json (
        id         TEXT PRIMARY KEY,
        user_id    TEXT NOT NULL REFERENCES users(id),
        title      TEXT NOT NULL,
        content    TEXT NOT NULL,
        tags       TEXT NOT NULL, -- JSON array of strings
        is_pinned  INTEGER NOT NULL DEFAULT 0,
        created_on TEXT NOT NULL,
        updated_on TEXT NOT NULL,
        json       TEXT NOT NULL GENERATED ALWAYS AS (json_object('_id', id, 'title', title,
          'content', content, 'tags', json(tags),
          'isPinned', json(CASE is_pinned WHEN 1 THEN 'true' ELSE 'false' END),
          'userId', user_id, 'createdOn', created_on, 'updatedOn', updated_on)) STORED
      ) STRICT;
      INSERT INTO notes_with_json (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
        SELECT id, user_id, title, content, tags, is_pinned, created_on, updated_on FROM notes;
      DROP TABLE notes;
      ALTER TABLE notes_with_json RENAME TO notes;
      CREATE INDEX notes_by_user_in_list_order
        ON notes (user_id, is_pinned DESC, created_on DESC, id DESC);
    `,
}
