// Each note keeps its JSON text (the bytes JSON.stringify writes for its record, keys in
// noteFromRow's order, compact; stored U+0000 escapes still in it: rows.ts decodeJsonText),
// computed by PostgreSQL whenever the row is written. A listing then joins stored text
// instead of escaping every field of every note on every read (docs/performance.md, "What
// shaped the design"). note_json is IMMUTABLE, as a generated column needs: to_json of text
// and array_to_json of text[] depend on no setting. Adding a
// stored column rewrites the table once, under an exclusive lock: a large table takes a
// while to migrate.
// Concatenated rather than json_build_object, which writes "key" : value with spaces.
import type { Migration } from '../migrations.js'

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
