// The note quota of the SQLite driver (mirrors postgres/quota.ts): a write reads account_usage in its
// transaction, and SQLite's one writer lets no write fall in between. Buffer.byteLength counts as the
// triggers do (lone surrogates: 3 bytes), for less than a check in the INSERT.
import type { Database } from 'better-sqlite3'
import { type NoteRecord, nextVersion, revises } from '../../note-shape.js'
import { bound, limits, resizes } from '../note-quota.js'
import { type NotePatch, type NoteQuota, NoteQuotaExceededError, type StoreDriver } from '../types.js'
import type { Writes } from './index.js'
import type { RoomCheck, SqliteKept } from './kept.js'
import type { SqliteNotes } from './notes.js'

const bytesOf = (s: string) => Buffer.byteLength(s, 'utf8')
const tagBytes = (tags: readonly string[]) => tags.reduce((sum, tag) => sum + bytesOf(tag), 0)

/** `used`: the account's bytes; null only when its usage row is missing. */
type SizesRow = { title: number; content: number; tags: number; used: number | null }

type QuotaMethods = 'insertNote' | 'updateNote' | 'deleteNote' | 'noteUsage' | 'accountsOverQuota'

/** The note writes, held to a quota when one is given, keeping trash and history (kept.ts), and the quota's reads. */
export function sqliteQuota(db: Database, { adding, write }: Writes, notes: SqliteNotes, kept: SqliteKept): Pick<StoreDriver, QuotaMethods> & { roomFor: RoomCheck } {
  const usageRow = db.prepare<[string], [number, number]>('SELECT notes, bytes FROM account_usage WHERE user_id = ?').raw()
  const sizes = db.prepare<[string, string], SizesRow>(
    `SELECT octet_length(title) AS title, octet_length(content) AS content,
            (SELECT coalesce(sum(octet_length(value)), 0) FROM json_each(tags)) AS tags,
            (SELECT bytes FROM account_usage WHERE user_id = n.user_id) AS used
     FROM notes n WHERE user_id = ? AND id = ?`,
  )
  const over = db.prepare<[number, number], number>('SELECT count(*) FROM account_usage WHERE notes > ? OR bytes > ?').pluck()
  /** Whether `note` may be added: false when its account is gone (known only with a quota); past the quota, throws. */
  const roomFor: RoomCheck = (userId, note, quota) => {
    if (!limits(quota)) return true
    // No usage row: the account is gone.
    const usage = usageRow.get(userId)
    if (!usage) return false
    if (usage[0] >= bound(quota.notes)) throw new NoteQuotaExceededError('notes')
    const size = bytesOf(note.title) + bytesOf(note.content) + tagBytes(note.tags)
    if (usage[1] + size > bound(quota.bytes)) throw new NoteQuotaExceededError('bytes')
    return true
  }
  const assertRoomToGrow = (userId: string, noteId: string, patch: NotePatch, quota: NoteQuota | undefined) => {
    if (quota === undefined || quota.bytes <= 0 || !resizes(patch)) return
    const old = sizes.get(userId, noteId)
    if (!old) return
    const grows =
      (patch.title === undefined ? old.title : bytesOf(patch.title)) +
      (patch.content === undefined ? old.content : bytesOf(patch.content)) +
      (patch.tags === undefined ? old.tags : tagBytes(patch.tags)) -
      (old.title + old.content + old.tags)
    if (grows > 0 && (old.used ?? 0) + grows > bound(quota.bytes)) throw new NoteQuotaExceededError('bytes')
  }
  const unexpected = (note: NoteRecord, expected: readonly string[] | undefined) => expected !== undefined && !expected.includes(note.updatedOn)
  return {
    roomFor,
    insertNote: (note, quota) => adding(() => roomFor(note.userId, note, quota) && notes.insertNote(note)),
    updateNote: (userId, noteId, patch, now, terms) =>
      adding(() => {
        const current = notes.findNote(userId, noteId)
        if (!current) return undefined
        if (unexpected(current, terms.expected)) return { conflict: current }
        assertRoomToGrow(userId, noteId, patch, terms.quota)
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
        if (unexpected(current, expected)) return { conflict: current }
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
