// The note quota of the SQLite driver (mirrors postgres/quota.ts): a write reads account_usage in its
// transaction, and SQLite's one writer lets no write fall in between. Buffer.byteLength counts as the
// triggers do (lone surrogates: 3 bytes), for less than a check in the INSERT.
import type { Database } from 'better-sqlite3'
import { type NoteRecord, holdsVersion, nextVersion, revises } from '../../note-shape.js'
import { bound, limits, resizes } from '../note-quota.js'
import { type NotePatch, type NoteQuota, NoteQuotaExceededError, type StoreDriver } from '../types.js'
import type { Writes } from './index.js'
import type { InsertNow, SqliteKept } from './kept.js'
import type { SqliteNotes } from './notes.js'

const bytesOf = (s: string) => Buffer.byteLength(s, 'utf8')
/** What the quota counts of a note: the UTF-8 bytes of its title, content and tags. */
const sizeOf = (note: Pick<NoteRecord, 'title' | 'content' | 'tags'>) =>
  bytesOf(note.title) + bytesOf(note.content) + note.tags.reduce((sum, tag) => sum + bytesOf(tag), 0)

type QuotaMethods = 'insertNote' | 'updateNote' | 'deleteNote' | 'noteUsage' | 'accountsOverQuota'

/** The note writes, held to a quota when one is given, keeping trash and history (kept.ts), and the quota's reads. */
export function sqliteQuota(db: Database, { adding, write }: Writes, notes: SqliteNotes, kept: SqliteKept): Pick<StoreDriver, QuotaMethods> & { insertNow: InsertNow } {
  const usageRow = db.prepare<[string], [number, number]>('SELECT notes, bytes FROM account_usage WHERE user_id = ?').raw()
  const over = db.prepare<[number, number], number>('SELECT count(*) FROM account_usage WHERE notes > ? OR bytes > ?').pluck()
  /** Inserts `note` in the writer's transaction: false when its account is gone; past the quota, throws. */
  const insertNow: InsertNow = (note, quota) => {
    if (!limits(quota)) return notes.insertNote(note)
    // No usage row: the account is gone.
    const usage = usageRow.get(note.userId)
    if (!usage) return false
    if (usage[0] >= bound(quota.notes)) throw new NoteQuotaExceededError('notes')
    if (usage[1] + sizeOf(note) > bound(quota.bytes)) throw new NoteQuotaExceededError('bytes')
    return notes.insertNote(note)
  }
  /** `current` patched may not take its account past the byte quota. */
  const assertRoomToGrow = (current: NoteRecord, patch: NotePatch, quota: NoteQuota | undefined) => {
    if (quota === undefined || quota.bytes <= 0 || !resizes(patch)) return
    const patched = { title: patch.title ?? current.title, content: patch.content ?? current.content, tags: patch.tags ?? current.tags }
    const grows = sizeOf(patched) - sizeOf(current)
    if (grows > 0 && (usageRow.get(current.userId)?.[1] ?? 0) + grows > bound(quota.bytes)) throw new NoteQuotaExceededError('bytes')
  }
  return {
    insertNow,
    insertNote: (note, quota) => adding(() => insertNow(note, quota)),
    updateNote: (userId, noteId, patch, now, terms) =>
      adding(() => {
        const current = notes.findNote(userId, noteId)
        if (!current) return undefined
        if (!holdsVersion(current, terms.expected)) return { conflict: current }
        assertRoomToGrow(current, patch, terms.quota)
        const note = notes.updateNote(userId, noteId, patch, nextVersion(current.updatedOn, now))
        if (!note) return undefined
        if (revises(current, note)) kept.keepRevision(current, terms.revisionId, now, terms.keepRevisions, terms.quota)
        return { note }
      }),
    // Never refused for want of disk: a person must always be able to delete.
    deleteNote: (userId, noteId, { expected, trashedOn, quota }) =>
      write(() => {
        const current = notes.findNote(userId, noteId)
        if (!current) return undefined
        if (!holdsVersion(current, expected)) return { conflict: current }
        if (trashedOn === undefined) kept.eraseHistoryOf(userId, noteId)
        else kept.moveToTrash(userId, noteId, trashedOn)
        notes.deleteNote(userId, noteId)
        if (trashedOn !== undefined) kept.trimKept(userId, quota)
        return { note: current }
      }),
    noteUsage: async (userId) => {
      const row = usageRow.get(userId)
      return row && { notes: row[0], bytes: row[1] }
    },
    accountsOverQuota: async (quota) => over.get(bound(quota.notes), bound(quota.bytes)) ?? 0,
  }
}
