-- The schema of a fresh SQLite database after every migration, as test/support/schema-text.ts
-- writes it. Not run by anything: written by
--   UPDATE_SCHEMA_SNAPSHOT=1 node --import tsx --test test/schema-snapshot.test.ts
-- and checked by the same test without the variable.

-- index attachment_refs_by_holder
CREATE INDEX attachment_refs_by_holder ON attachment_refs (holder_kind, holder_id);

-- index attachments_by_user
CREATE INDEX attachments_by_user ON attachments (user_id, created_on DESC, id DESC);

-- index attachments_unreferenced
CREATE INDEX attachments_unreferenced ON attachments (referenced, unreferenced_since, created_on);

-- index note_changes_by_age
CREATE INDEX note_changes_by_age ON note_changes (changed_on);

-- index note_changes_in_order
CREATE UNIQUE INDEX note_changes_in_order ON note_changes (user_id, seq);

-- index note_revisions_by_user
CREATE INDEX note_revisions_by_user ON note_revisions (user_id, replaced_on);

-- index note_revisions_of_note
CREATE UNIQUE INDEX note_revisions_of_note ON note_revisions (note_id, edited_on, id);

-- index notes_by_user_in_list_order
CREATE INDEX notes_by_user_in_list_order
ON notes (user_id, is_pinned DESC, created_on DESC, id DESC);

-- index notes_in_feed_order
CREATE INDEX notes_in_feed_order ON notes (user_id, change_seq);

-- index sessions_by_user
CREATE INDEX sessions_by_user ON sessions (user_id, last_used_on DESC, created_on DESC, id DESC);

-- index trashed_notes_by_age
CREATE INDEX trashed_notes_by_age ON trashed_notes (deleted_on);

-- index trashed_notes_by_user
CREATE INDEX trashed_notes_by_user ON trashed_notes (user_id, deleted_on, id);

-- table account_usage
CREATE TABLE account_usage (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  notes   INTEGER NOT NULL,
  bytes   INTEGER NOT NULL
, kept INTEGER NOT NULL DEFAULT 0) STRICT, WITHOUT ROWID;

-- table attachment_refs
CREATE TABLE attachment_refs (
  attachment_id TEXT NOT NULL REFERENCES attachments(id) ON DELETE CASCADE,
  holder_kind   TEXT NOT NULL,
  holder_id     TEXT NOT NULL,
  note_id       TEXT NOT NULL,
  PRIMARY KEY (attachment_id, holder_kind, holder_id)
) STRICT, WITHOUT ROWID;

-- table attachments
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

-- table note_changes
CREATE TABLE note_changes (
  user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  note_id    TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  changed_on TEXT NOT NULL,
  PRIMARY KEY (user_id, note_id)
) STRICT, WITHOUT ROWID;

-- table note_feeds
CREATE TABLE note_feeds (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  epoch   TEXT NOT NULL,
  floor   INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- table note_revisions
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

-- table note_text
CREATE VIRTUAL TABLE note_text USING fts5(title, content, content = 'notes', content_rowid = 'rowid',
tokenize = 'trigram case_sensitive 0', detail = none, columnsize = 0);

-- table note_text_build
CREATE TABLE note_text_build (through INTEGER NOT NULL) STRICT;

-- table note_text_config
CREATE TABLE 'note_text_config'(k PRIMARY KEY, v) WITHOUT ROWID;

-- table note_text_data
CREATE TABLE 'note_text_data'(id INTEGER PRIMARY KEY, block BLOB);

-- table note_text_idx
CREATE TABLE 'note_text_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;

-- table notes
CREATE TABLE "notes" (
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
, change_seq INTEGER NOT NULL DEFAULT 0) STRICT;

-- table schema_changes
CREATE TABLE schema_changes (
number INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_on TEXT NOT NULL);

-- table schema_migrations
CREATE TABLE schema_migrations (
version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_on TEXT NOT NULL);

-- table sessions
CREATE TABLE sessions (
  id           TEXT PRIMARY KEY,
  user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_on   TEXT NOT NULL,
  last_used_on TEXT NOT NULL,
  client       TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- table trashed_notes
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

-- table user_versions
CREATE TABLE user_versions (
  user_id TEXT PRIMARY KEY,
  notes   INTEGER NOT NULL,
  account INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- table users
CREATE TABLE users (
  id            TEXT PRIMARY KEY,
  full_name     TEXT NOT NULL,
  email         TEXT NOT NULL,
  -- trimmed, lower-cased email: the unique key for duplicates and login (docs/contract.md, "Emails")
  email_key     TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  created_on    TEXT NOT NULL
, tokens_not_before TEXT) STRICT;

-- table version_clock
CREATE TABLE version_clock (
  id  INTEGER PRIMARY KEY CHECK (id = 1),
  now INTEGER NOT NULL
) STRICT;

-- trigger account_usage_note_added
CREATE TRIGGER account_usage_note_added AFTER INSERT ON notes BEGIN
  UPDATE account_usage SET notes = notes + 1,
    bytes = bytes + length(CAST(NEW.title AS BLOB)) + length(CAST(NEW.content AS BLOB))
      + (SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM json_each(NEW.tags))
  WHERE user_id = NEW.user_id;
END;

-- trigger account_usage_note_moved
CREATE TRIGGER account_usage_note_moved AFTER UPDATE OF user_id ON notes
  WHEN NEW.user_id IS NOT OLD.user_id
BEGIN
  UPDATE account_usage SET notes = notes - 1,
    bytes = bytes - length(CAST(OLD.title AS BLOB)) - length(CAST(OLD.content AS BLOB))
      - (SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM json_each(OLD.tags))
  WHERE user_id = OLD.user_id;
  UPDATE account_usage SET notes = notes + 1,
    bytes = bytes + length(CAST(NEW.title AS BLOB)) + length(CAST(NEW.content AS BLOB))
      + (SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM json_each(NEW.tags))
  WHERE user_id = NEW.user_id;
END;

-- trigger account_usage_note_removed
CREATE TRIGGER account_usage_note_removed AFTER DELETE ON notes BEGIN
  UPDATE account_usage SET notes = notes - 1,
    bytes = bytes - length(CAST(OLD.title AS BLOB)) - length(CAST(OLD.content AS BLOB))
      - (SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM json_each(OLD.tags))
  WHERE user_id = OLD.user_id;
END;

-- trigger account_usage_note_resized
CREATE TRIGGER account_usage_note_resized AFTER UPDATE OF title, content, tags ON notes
  WHEN NEW.user_id = OLD.user_id
    AND (NEW.title IS NOT OLD.title OR NEW.content IS NOT OLD.content OR NEW.tags IS NOT OLD.tags)
BEGIN
  UPDATE account_usage SET
    bytes = bytes + length(CAST(NEW.title AS BLOB)) + length(CAST(NEW.content AS BLOB))
      + (SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM json_each(NEW.tags))
      - length(CAST(OLD.title AS BLOB)) - length(CAST(OLD.content AS BLOB))
      - (SELECT coalesce(sum(length(CAST(value AS BLOB))), 0) FROM json_each(OLD.tags))
  WHERE user_id = NEW.user_id;
END;

-- trigger account_usage_note_revisions_added
CREATE TRIGGER account_usage_note_revisions_added AFTER INSERT ON note_revisions BEGIN
  UPDATE account_usage SET kept = kept + NEW.bytes WHERE user_id = NEW.user_id;
END;

-- trigger account_usage_note_revisions_removed
CREATE TRIGGER account_usage_note_revisions_removed AFTER DELETE ON note_revisions BEGIN
  UPDATE account_usage SET kept = kept - OLD.bytes WHERE user_id = OLD.user_id;
END;

-- trigger account_usage_of_new_user
CREATE TRIGGER account_usage_of_new_user AFTER INSERT ON users BEGIN
  INSERT INTO account_usage (user_id, notes, bytes) VALUES (NEW.id, 0, 0);
END;

-- trigger account_usage_trashed_notes_added
CREATE TRIGGER account_usage_trashed_notes_added AFTER INSERT ON trashed_notes BEGIN
  UPDATE account_usage SET kept = kept + NEW.bytes WHERE user_id = NEW.user_id;
END;

-- trigger account_usage_trashed_notes_removed
CREATE TRIGGER account_usage_trashed_notes_removed AFTER DELETE ON trashed_notes BEGIN
  UPDATE account_usage SET kept = kept - OLD.bytes WHERE user_id = OLD.user_id;
END;

-- trigger attachment_referenced
CREATE TRIGGER attachment_referenced AFTER INSERT ON attachment_refs BEGIN
  UPDATE attachments SET referenced = 1, unreferenced_since = NULL
    WHERE id = NEW.attachment_id AND (referenced = 0 OR unreferenced_since IS NOT NULL);
END;

-- trigger attachment_refs_note_revisions_added
CREATE TRIGGER attachment_refs_note_revisions_added AFTER INSERT ON note_revisions WHEN (instr(NEW.content, '/attachments/') > 0 OR instr(NEW.title, '/attachments/') > 0) BEGIN

  INSERT OR IGNORE INTO attachment_refs (attachment_id, holder_kind, holder_id, note_id)
    SELECT a.id, 'r', NEW.id, NEW.note_id FROM attachments a
    WHERE a.user_id = NEW.user_id
      AND (instr(NEW.content, '/attachments/' || a.id) > 0 OR instr(NEW.title, '/attachments/' || a.id) > 0);
END;

-- trigger attachment_refs_note_revisions_changed
CREATE TRIGGER attachment_refs_note_revisions_changed AFTER UPDATE OF title, content ON note_revisions
WHEN (instr(OLD.content, '/attachments/') > 0 OR instr(OLD.title, '/attachments/') > 0) OR (instr(NEW.content, '/attachments/') > 0 OR instr(NEW.title, '/attachments/') > 0) BEGIN

  DELETE FROM attachment_refs WHERE holder_kind = 'r' AND holder_id = OLD.id;

  INSERT OR IGNORE INTO attachment_refs (attachment_id, holder_kind, holder_id, note_id)
    SELECT a.id, 'r', NEW.id, NEW.note_id FROM attachments a
    WHERE a.user_id = NEW.user_id
      AND (instr(NEW.content, '/attachments/' || a.id) > 0 OR instr(NEW.title, '/attachments/' || a.id) > 0);
END;

-- trigger attachment_refs_note_revisions_removed
CREATE TRIGGER attachment_refs_note_revisions_removed AFTER DELETE ON note_revisions WHEN (instr(OLD.content, '/attachments/') > 0 OR instr(OLD.title, '/attachments/') > 0) BEGIN

  DELETE FROM attachment_refs WHERE holder_kind = 'r' AND holder_id = OLD.id;
END;

-- trigger attachment_refs_notes_added
CREATE TRIGGER attachment_refs_notes_added AFTER INSERT ON notes WHEN (instr(NEW.content, '/attachments/') > 0 OR instr(NEW.title, '/attachments/') > 0) BEGIN

  INSERT OR IGNORE INTO attachment_refs (attachment_id, holder_kind, holder_id, note_id)
    SELECT a.id, 'n', NEW.id, NEW.id FROM attachments a
    WHERE a.user_id = NEW.user_id
      AND (instr(NEW.content, '/attachments/' || a.id) > 0 OR instr(NEW.title, '/attachments/' || a.id) > 0);
END;

-- trigger attachment_refs_notes_changed
CREATE TRIGGER attachment_refs_notes_changed AFTER UPDATE OF title, content ON notes
WHEN (instr(OLD.content, '/attachments/') > 0 OR instr(OLD.title, '/attachments/') > 0) OR (instr(NEW.content, '/attachments/') > 0 OR instr(NEW.title, '/attachments/') > 0) BEGIN

  DELETE FROM attachment_refs WHERE holder_kind = 'n' AND holder_id = OLD.id;

  INSERT OR IGNORE INTO attachment_refs (attachment_id, holder_kind, holder_id, note_id)
    SELECT a.id, 'n', NEW.id, NEW.id FROM attachments a
    WHERE a.user_id = NEW.user_id
      AND (instr(NEW.content, '/attachments/' || a.id) > 0 OR instr(NEW.title, '/attachments/' || a.id) > 0);
END;

-- trigger attachment_refs_notes_removed
CREATE TRIGGER attachment_refs_notes_removed AFTER DELETE ON notes WHEN (instr(OLD.content, '/attachments/') > 0 OR instr(OLD.title, '/attachments/') > 0) BEGIN

  DELETE FROM attachment_refs WHERE holder_kind = 'n' AND holder_id = OLD.id;
END;

-- trigger attachment_refs_trashed_notes_added
CREATE TRIGGER attachment_refs_trashed_notes_added AFTER INSERT ON trashed_notes WHEN (instr(NEW.content, '/attachments/') > 0 OR instr(NEW.title, '/attachments/') > 0) BEGIN

  INSERT OR IGNORE INTO attachment_refs (attachment_id, holder_kind, holder_id, note_id)
    SELECT a.id, 't', NEW.id, NEW.id FROM attachments a
    WHERE a.user_id = NEW.user_id
      AND (instr(NEW.content, '/attachments/' || a.id) > 0 OR instr(NEW.title, '/attachments/' || a.id) > 0);
END;

-- trigger attachment_refs_trashed_notes_changed
CREATE TRIGGER attachment_refs_trashed_notes_changed AFTER UPDATE OF title, content ON trashed_notes
WHEN (instr(OLD.content, '/attachments/') > 0 OR instr(OLD.title, '/attachments/') > 0) OR (instr(NEW.content, '/attachments/') > 0 OR instr(NEW.title, '/attachments/') > 0) BEGIN

  DELETE FROM attachment_refs WHERE holder_kind = 't' AND holder_id = OLD.id;

  INSERT OR IGNORE INTO attachment_refs (attachment_id, holder_kind, holder_id, note_id)
    SELECT a.id, 't', NEW.id, NEW.id FROM attachments a
    WHERE a.user_id = NEW.user_id
      AND (instr(NEW.content, '/attachments/' || a.id) > 0 OR instr(NEW.title, '/attachments/' || a.id) > 0);
END;

-- trigger attachment_refs_trashed_notes_removed
CREATE TRIGGER attachment_refs_trashed_notes_removed AFTER DELETE ON trashed_notes WHEN (instr(OLD.content, '/attachments/') > 0 OR instr(OLD.title, '/attachments/') > 0) BEGIN

  DELETE FROM attachment_refs WHERE holder_kind = 't' AND holder_id = OLD.id;
END;

-- trigger attachment_unreferenced
CREATE TRIGGER attachment_unreferenced AFTER DELETE ON attachment_refs
WHEN NOT EXISTS (SELECT 1 FROM attachment_refs WHERE attachment_id = OLD.attachment_id) BEGIN
  UPDATE attachments SET unreferenced_since = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = OLD.attachment_id;
END;

-- trigger note_feed_of_new_user
CREATE TRIGGER note_feed_of_new_user AFTER INSERT ON users BEGIN
  INSERT INTO note_feeds VALUES (NEW.id, lower(hex(randomblob(8))), 0);
END;

-- trigger note_text_added
CREATE TRIGGER note_text_added AFTER INSERT ON notes WHEN NOT EXISTS (SELECT 1 FROM note_text_build WHERE through < NEW.rowid) BEGIN INSERT INTO note_text (rowid, title, content) VALUES (NEW.rowid, NEW.title, NEW.content); END;

-- trigger note_text_changed
CREATE TRIGGER note_text_changed AFTER UPDATE OF title, content ON notes WHEN NOT EXISTS (SELECT 1 FROM note_text_build WHERE through < OLD.rowid) BEGIN INSERT INTO note_text (note_text, rowid, title, content) VALUES ('delete', OLD.rowid, OLD.title, OLD.content); INSERT INTO note_text (rowid, title, content) VALUES (NEW.rowid, NEW.title, NEW.content); END;

-- trigger note_text_removed
CREATE TRIGGER note_text_removed AFTER DELETE ON notes WHEN NOT EXISTS (SELECT 1 FROM note_text_build WHERE through < OLD.rowid) BEGIN INSERT INTO note_text (note_text, rowid, title, content) VALUES ('delete', OLD.rowid, OLD.title, OLD.content); END;

-- trigger notes_numbered_added
CREATE TRIGGER notes_numbered_added AFTER INSERT ON notes BEGIN
UPDATE version_clock SET now = now + 1;
UPDATE user_versions SET notes = (SELECT now FROM version_clock) WHERE user_id IN (NEW.user_id);
UPDATE notes SET change_seq = (SELECT now FROM version_clock)
  WHERE rowid = NEW.rowid AND change_seq IS NOT (SELECT now FROM version_clock);
  DELETE FROM note_changes WHERE user_id = NEW.user_id AND note_id = NEW.id;
END;

-- trigger notes_numbered_changed
CREATE TRIGGER notes_numbered_changed AFTER UPDATE OF id, user_id, title, content, tags, is_pinned, created_on, updated_on
  ON notes BEGIN
UPDATE version_clock SET now = now + 1;
UPDATE user_versions SET notes = (SELECT now FROM version_clock) WHERE user_id IN (OLD.user_id, NEW.user_id);
UPDATE notes SET change_seq = (SELECT now FROM version_clock)
  WHERE rowid = NEW.rowid AND change_seq IS NOT (SELECT now FROM version_clock);
  DELETE FROM note_changes WHERE NEW.user_id IS NOT OLD.user_id AND user_id = NEW.user_id AND note_id = NEW.id;
INSERT INTO note_changes (user_id, note_id, seq, changed_on)
  SELECT OLD.user_id, OLD.id, now, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM version_clock
  WHERE NEW.user_id IS NOT OLD.user_id AND EXISTS (SELECT 1 FROM users WHERE id = OLD.user_id)
  ON CONFLICT (user_id, note_id) DO UPDATE SET seq = excluded.seq, changed_on = excluded.changed_on;
END;

-- trigger notes_numbered_removed
CREATE TRIGGER notes_numbered_removed AFTER DELETE ON notes BEGIN
  UPDATE version_clock SET now = now + 1;
  UPDATE user_versions SET notes = (SELECT now FROM version_clock) WHERE user_id = OLD.user_id;
INSERT INTO note_changes (user_id, note_id, seq, changed_on)
  SELECT OLD.user_id, OLD.id, now, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM version_clock
  WHERE  EXISTS (SELECT 1 FROM users WHERE id = OLD.user_id)
  ON CONFLICT (user_id, note_id) DO UPDATE SET seq = excluded.seq, changed_on = excluded.changed_on;
END;

-- trigger user_versions_session_added
CREATE TRIGGER user_versions_session_added AFTER INSERT ON sessions BEGIN
  UPDATE version_clock SET now = now + 1;
  UPDATE user_versions SET account = (SELECT now FROM version_clock) WHERE user_id = NEW.user_id;
END;

-- trigger user_versions_session_changed
CREATE TRIGGER user_versions_session_changed AFTER UPDATE ON sessions BEGIN
  UPDATE version_clock SET now = now + 1;
  UPDATE user_versions SET account = (SELECT now FROM version_clock) WHERE user_id IN (OLD.user_id, NEW.user_id);
END;

-- trigger user_versions_session_removed
CREATE TRIGGER user_versions_session_removed AFTER DELETE ON sessions BEGIN
  UPDATE version_clock SET now = now + 1;
  UPDATE user_versions SET account = (SELECT now FROM version_clock) WHERE user_id = OLD.user_id;
END;

-- trigger user_versions_user_added
CREATE TRIGGER user_versions_user_added AFTER INSERT ON users BEGIN
  UPDATE version_clock SET now = now + 1;
  INSERT OR REPLACE INTO user_versions
    SELECT NEW.id, now, now FROM version_clock;
END;

-- trigger user_versions_user_changed
CREATE TRIGGER user_versions_user_changed AFTER UPDATE ON users BEGIN
  UPDATE version_clock SET now = now + 1;
  DELETE FROM user_versions WHERE user_id = OLD.id AND OLD.id IS NOT NEW.id;
  INSERT OR REPLACE INTO user_versions
    SELECT NEW.id, now, now FROM version_clock;
END;

-- trigger user_versions_user_removed
CREATE TRIGGER user_versions_user_removed AFTER DELETE ON users BEGIN
  UPDATE version_clock SET now = now + 1;
  DELETE FROM user_versions WHERE user_id = OLD.id;
END;
