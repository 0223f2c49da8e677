// The per-account note quota of the SQLite driver (mirrors postgres/quota.ts). The triggers of
// migration 5, remade by migration 12, keep each account's note count and size in
// account_usage; a checked write reads that one row and the write's own size, then writes,
// inside the write's transaction. SQLite runs one write transaction at a time (the service's
// group commit, and BEGIN IMMEDIATE between processes), so no other write falls between the
// check and the write: 50 adds at once at the limit leave exactly the limit.
//
// The check is made in JS, with Buffer.byteLength, which counts a string's bytes as SQLite's
// octet_length counts the stored text (lone surrogates included: 3 bytes each), so the check
// and the triggers agree (test/note-quota-store.test.ts holds them to it). It is made here, not
// in the INSERT statement (INSERT ... SELECT ... WHERE EXISTS, with json_each over the tags),
// which costs each insert far more (docs/performance.md, "What shaped the design").
import type { Database, Statement } from 'better-sqlite3'
import { bound } from '../note-quota.js'
import { type NotePatch, type NoteQuota, NoteQuotaExceededError, type NoteRecord, type NoteUsage } from '../types.js'
import type { SqliteNotes } from './notes.js'

/** The UTF-8 bytes of a JSON array of strings' items, as the usage triggers count tags (migration 12). */
const TAG_BYTES = '(SELECT coalesce(sum(octet_length(value)), 0) FROM json_each(tags))'

const bytesOf = (s: string) => Buffer.byteLength(s, 'utf8')
const tagBytes = (tags: readonly string[]) => tags.reduce((sum, tag) => sum + bytesOf(tag), 0)

/** What a note takes of its account's byte quota: the UTF-8 bytes of title, content and tags. */
export const noteBytes = (note: Pick<NoteRecord, 'title' | 'content' | 'tags'>): number =>
  bytesOf(note.title) + bytesOf(note.content) + tagBytes(note.tags)

interface SizesRow {
  title: number
  content: number
  tags: number
  /** The account's bytes; null only when its usage row is missing. */
  used: number | null
}

export class SqliteQuota {
  private readonly usageRow: Statement<[string], [number, number]>
  private readonly sizes: Statement<[string, string], SizesRow>
  private readonly over: Statement<[number, number], number>

  constructor(
    db: Database,
    private readonly notes: SqliteNotes,
  ) {
    this.usageRow = db.prepare<[string], [number, number]>('SELECT notes, bytes FROM account_usage WHERE user_id = ?').raw()
    this.sizes = db.prepare(
      `SELECT octet_length(title) AS title, octet_length(content) AS content, ${TAG_BYTES} AS tags,
              (SELECT bytes FROM account_usage WHERE user_id = n.user_id) AS used
       FROM notes n WHERE user_id = ? AND id = ?`,
    )
    this.over = db.prepare<[number, number], number>('SELECT count(*) FROM account_usage WHERE notes > ? OR bytes > ?').pluck()
  }

  /** Store.insertNote with a quota: false when the account (and so its usage row) is gone. */
  insertNote(note: NoteRecord, quota: NoteQuota): boolean {
    const usage = this.usageRow.get(note.userId)
    if (!usage) return false
    if (usage[0] >= bound(quota.notes)) throw new NoteQuotaExceededError('notes')
    if (usage[1] + noteBytes(note) > bound(quota.bytes)) throw new NoteQuotaExceededError('bytes')
    return this.notes.insertNote(note)
  }

  /** Store.updateNote with a byte quota: refused when the patch grows the note past it. */
  updateNote(userId: string, noteId: string, patch: NotePatch, updatedOn: string, quota: NoteQuota): NoteRecord | undefined {
    const old = this.sizes.get(userId, noteId)
    if (!old) return undefined
    const grows =
      (patch.title === undefined ? old.title : bytesOf(patch.title)) +
      (patch.content === undefined ? old.content : bytesOf(patch.content)) +
      (patch.tags === undefined ? old.tags : tagBytes(patch.tags)) -
      (old.title + old.content + old.tags)
    if (grows > 0 && (old.used ?? 0) + grows > bound(quota.bytes)) throw new NoteQuotaExceededError('bytes')
    return this.notes.updateNote(userId, noteId, patch, updatedOn)
  }

  usage(userId: string): NoteUsage | undefined {
    const row = this.usageRow.get(userId)
    return row && { notes: row[0], bytes: row[1] }
  }

  accountsOver(quota: NoteQuota): number {
    return this.over.get(bound(quota.notes), bound(quota.bytes)) ?? 0
  }
}
