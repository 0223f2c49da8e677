// Search's trigram index (docs/search.md, "The index"): an FTS5 table over notes' title and content, external
// content (it stores no text of its own), kept by triggers in the transaction of every write to notes. The notes
// that exist when this runs are indexed afterwards, a batch at a time (services/search-index-build.ts): while that build
// lasts, note_text_build says up to which rowid the index holds the notes, the triggers keep only those, and search
// reads every note. The rowids of notes never change: nothing here rebuilds or vacuums notes.
import type { SqliteMigration as Migration } from '../../migrations.js'

/** The triggers act only on notes the index already holds. */
const indexed = (ref: 'NEW' | 'OLD') => `WHEN NOT EXISTS (SELECT 1 FROM note_text_build WHERE through < ${ref}.rowid)`
const add = `INSERT INTO note_text (rowid, title, content) VALUES (NEW.rowid, NEW.title, NEW.content);`
const remove = `INSERT INTO note_text (note_text, rowid, title, content) VALUES ('delete', OLD.rowid, OLD.title, OLD.content);`

export const migration: Migration = {
  version: 16,
  name: 'search-index',
  sql: `
    CREATE VIRTUAL TABLE note_text USING fts5(title, content, content = 'notes', content_rowid = 'rowid',
      tokenize = 'trigram case_sensitive 0', detail = none, columnsize = 0);
    CREATE TABLE note_text_build (through INTEGER NOT NULL) STRICT;
    INSERT INTO note_text_build SELECT 0 WHERE EXISTS (SELECT 1 FROM notes);

    CREATE TRIGGER note_text_added AFTER INSERT ON notes ${indexed('NEW')} BEGIN ${add} END;
    CREATE TRIGGER note_text_changed AFTER UPDATE OF title, content ON notes ${indexed('OLD')} BEGIN ${remove} ${add} END;
    CREATE TRIGGER note_text_removed AFTER DELETE ON notes ${indexed('OLD')} BEGIN ${remove} END;
  `,
}
