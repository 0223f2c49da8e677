// Each note keeps its JSON text (what JSON.stringify writes for its record: rows.ts decodeJsonText),
// computed on every write, so a listing joins stored text (docs/performance.md, "What shaped the
// design"). note_json is IMMUTABLE, as a generated column needs; concatenated, as json_build_object
// writes spaces. Adding the stored column rewrites the table once, under an exclusive lock.
import type { PostgresMigration as Migration } from '../../migrations.js'

export const migration: Migration = {
  version: 2,
  name: 'note-json',
  sql: `
      CREATE FUNCTION note_json(id text, title text, content text, tags text[], is_pinned boolean,
                                user_id text, created_on text, updated_on text) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$
          SELECT '{"_id":' || to_json(id) || ',"title":' || to_json(title) || ',"content":' || to_json(content)
            || ',"tags":' || array_to_json(tags) || ',"isPinned":' || CASE WHEN is_pinned THEN 'true' ELSE 'false' END
            || ',"userId":' || to_json(user_id) || ',"createdOn":' || to_json(created_on)
            || ',"updatedOn":' || to_json(updated_on) || '}'
        $$;

      ALTER TABLE notes ADD COLUMN json text NOT NULL
        GENERATED ALWAYS AS (note_json(id, title, content, tags, is_pinned, user_id, created_on, updated_on)) STORED;
    `,
}
