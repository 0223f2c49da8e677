// The per-account note quota of the SQLite driver (mirrors the quota statements of
// postgres/notes.ts). Migration 3's triggers keep each account's note count and size in
// account_usage; the statements here read that one row in the same statement as the insert or
// update they guard. SQLite runs one write transaction at a time (the service's group commit,
// and BEGIN IMMEDIATE between processes), so the check and the write cannot be separated by
// another write: 50 adds at once at the limit leave exactly the limit.
import type { Database, Statement } from 'better-sqlite3'
import { bound } from '../note-quota.js'
import { type NotePatch, type NoteQuota, NoteQuotaExceededError, type NoteRecord, type NoteUsage } from '../types.js'
import { NOTE_COLUMNS, type NoteRow, noteFromRow } from './rows.js'

/** The UTF-8 bytes of a JSON array of strings' items, as migration 3's triggers count tags. */
const tagBytes = (json: string) => `(SELECT coalesce(sum(octet_length(value)), 0) FROM json_each(${json}))`

export class SqliteQuota {
  private readonly insertWithin: Statement<[Record<string, unknown>]>
  private readonly updateWithin: Statement<[Record<string, unknown>], NoteRow>
  private readonly usageOf: Statement<[string], NoteUsage>
  private readonly noteExists: Statement<[string, string], number>
  private readonly over: Statement<[Record<string, unknown>], number>

  constructor(db: Database) {
    this.insertWithin = db.prepare(
      `INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
       SELECT @_id, @userId, @title, @content, @tags, @isPinned, @createdOn, @updatedOn
       WHERE EXISTS (SELECT 1 FROM account_usage WHERE user_id = @userId AND notes < @maxNotes
         AND bytes + octet_length(@title) + octet_length(@content) + ${tagBytes('@tags')} <= @maxBytes)`,
    )
    // In the WHERE clause the columns are the note's values before the update: the growth is the
    // new size less the old, and an edit that does not grow the note always passes.
    this.updateWithin = db.prepare(
      `UPDATE notes SET
         title = COALESCE(@title, title),
         content = COALESCE(@content, content),
         tags = COALESCE(@tags, tags),
         is_pinned = COALESCE(@isPinned, is_pinned),
         updated_on = @updatedOn
       WHERE user_id = @userId AND id = @noteId
         AND octet_length(COALESCE(@title, title)) + octet_length(COALESCE(@content, content)) + ${tagBytes('COALESCE(@tags, tags)')}
             - octet_length(title) - octet_length(content) - ${tagBytes('tags')}
           <= max(0, @maxBytes - coalesce((SELECT bytes FROM account_usage WHERE user_id = @userId), 0))
       RETURNING ${NOTE_COLUMNS}`,
    )
    this.usageOf = db.prepare('SELECT notes, bytes FROM account_usage WHERE user_id = ?')
    this.noteExists = db.prepare<[string, string], number>('SELECT 1 FROM notes WHERE user_id = ? AND id = ?').pluck()
    this.over = db.prepare<[Record<string, unknown>], number>('SELECT count(*) FROM account_usage WHERE notes > @maxNotes OR bytes > @maxBytes').pluck()
  }

  /** Store.insertNote with a quota: false when the account is gone. */
  insertNote(note: NoteRecord, quota: NoteQuota): boolean {
    const inserted = this.insertWithin.run({
      ...note,
      tags: JSON.stringify(note.tags),
      isPinned: note.isPinned ? 1 : 0,
      maxNotes: bound(quota.notes),
      maxBytes: bound(quota.bytes),
    })
    if (inserted.changes === 1) return true
    // Refused: say which limit, or that the account (and so its usage row) is gone.
    const usage = this.usageOf.get(note.userId)
    if (!usage) return false
    throw new NoteQuotaExceededError(usage.notes >= bound(quota.notes) ? 'notes' : 'bytes')
  }

  /** Store.updateNote of a patch that resizes the note, with a byte quota. */
  updateNote(userId: string, noteId: string, patch: NotePatch, updatedOn: string, quota: NoteQuota): NoteRecord | undefined {
    const row = this.updateWithin.get({
      userId,
      noteId,
      updatedOn,
      title: patch.title ?? null,
      content: patch.content ?? null,
      tags: patch.tags === undefined ? null : JSON.stringify(patch.tags),
      isPinned: patch.isPinned === undefined ? null : patch.isPinned ? 1 : 0,
      maxBytes: bound(quota.bytes),
    })
    if (row) return noteFromRow(row)
    if (this.noteExists.get(userId, noteId)) throw new NoteQuotaExceededError('bytes')
    return undefined
  }

  usage(userId: string): NoteUsage | undefined {
    return this.usageOf.get(userId)
  }

  accountsOver(quota: NoteQuota): number {
    return this.over.get({ maxNotes: bound(quota.notes), maxBytes: bound(quota.bytes) }) ?? 0
  }
}
