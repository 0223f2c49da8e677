// Attachments (docs/attachments.md): a record per uploaded file, whose bytes live in the blob storage under
// blob_key, and the references notes make to them. Every row that holds a note's text (a live note, a trashed one,
// a kept revision) refers to the attachments its text links to (`/attachments/<id>`), kept by the triggers below in
// the transaction of the write, whatever makes it: the service, an import or an operator's SQL. A link counts only
// to an attachment of the same account. SQLite has no regular expressions and a trigger no WITH, so a text is
// matched against each of its account's attachment ids, and only when it holds '/attachments/' at all.
//
// `referenced` says a note has ever linked the attachment; `unreferenced_since` when its last reference went. The
// sweep erases an attachment never referenced a day after its upload, and one unreferenced for
// ATTACHMENT_GRACE_DAYS; a reference coming back clears the mark.
import type { SqliteMigration as Migration } from '../../migrations.js'

const NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`

const LINK = `'/attachments/'`

/** Does the text of row R link somewhere under /attachments/ at all. */
const links = (r: string) => `(instr(${r}.content, ${LINK}) > 0 OR instr(${r}.title, ${LINK}) > 0)`

/** Adds the references of row NEW of `kind` ('n' note, 't' trashed note, 'r' revision) held under `holder`. */
const addReferences = (kind: string, holder: string, noteId: string) => `
    INSERT OR IGNORE INTO attachment_refs (attachment_id, holder_kind, holder_id, note_id)
      SELECT a.id, '${kind}', ${holder}, ${noteId} FROM attachments a
      WHERE a.user_id = NEW.user_id
        AND (instr(NEW.content, ${LINK} || a.id) > 0 OR instr(NEW.title, ${LINK} || a.id) > 0);`

const dropReferences = (kind: string, holder: string) => `
    DELETE FROM attachment_refs WHERE holder_kind = '${kind}' AND holder_id = ${holder};`

/** The triggers of a table whose rows hold a note's text. */
function holderTriggers(table: string, kind: string, noteIdColumn: string): string {
  return `
  CREATE TRIGGER attachment_refs_${table}_added AFTER INSERT ON ${table} WHEN ${links('NEW')} BEGIN
    ${addReferences(kind, 'NEW.id', `NEW.${noteIdColumn}`)}
  END;
  CREATE TRIGGER attachment_refs_${table}_changed AFTER UPDATE OF title, content ON ${table}
  WHEN ${links('OLD')} OR ${links('NEW')} BEGIN
    ${dropReferences(kind, 'OLD.id')}
    ${addReferences(kind, 'NEW.id', `NEW.${noteIdColumn}`)}
  END;
  CREATE TRIGGER attachment_refs_${table}_removed AFTER DELETE ON ${table} WHEN ${links('OLD')} BEGIN
    ${dropReferences(kind, 'OLD.id')}
  END;`
}

export const migration: Migration = {
  version: 18,
  name: 'attachments',
  sql: `
    CREATE TABLE attachments (
      id                 TEXT PRIMARY KEY,
      user_id            TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      name               TEXT NOT NULL,
      type               TEXT NOT NULL,
      size               INTEGER NOT NULL,
      sha256             TEXT NOT NULL,
      blob_key           TEXT NOT NULL UNIQUE,
      created_on         TEXT NOT NULL,
      referenced         INTEGER NOT NULL DEFAULT 0,
      unreferenced_since TEXT
    ) STRICT;
    CREATE INDEX attachments_by_user ON attachments (user_id, created_on DESC, id DESC);
    CREATE INDEX attachments_unreferenced ON attachments (referenced, unreferenced_since, created_on);

    CREATE TABLE attachment_refs (
      attachment_id TEXT NOT NULL REFERENCES attachments(id) ON DELETE CASCADE,
      holder_kind   TEXT NOT NULL,
      holder_id     TEXT NOT NULL,
      note_id       TEXT NOT NULL,
      PRIMARY KEY (attachment_id, holder_kind, holder_id)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX attachment_refs_by_holder ON attachment_refs (holder_kind, holder_id);

    CREATE TRIGGER attachment_referenced AFTER INSERT ON attachment_refs BEGIN
      UPDATE attachments SET referenced = 1, unreferenced_since = NULL
        WHERE id = NEW.attachment_id AND (referenced = 0 OR unreferenced_since IS NOT NULL);
    END;
    CREATE TRIGGER attachment_unreferenced AFTER DELETE ON attachment_refs
    WHEN NOT EXISTS (SELECT 1 FROM attachment_refs WHERE attachment_id = OLD.attachment_id) BEGIN
      UPDATE attachments SET unreferenced_since = ${NOW} WHERE id = OLD.attachment_id;
    END;
    ${holderTriggers('notes', 'n', 'id')}
    ${holderTriggers('trashed_notes', 't', 'id')}
    ${holderTriggers('note_revisions', 'r', 'note_id')}
  `,
}
