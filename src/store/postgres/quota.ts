// The per-account note quota of the PostgreSQL driver (mirrors sqlite/quota.ts). Migration 5's
// triggers keep each account's note count and size in account_usage. A checked write locks the
// account's row first (FOR UPDATE) and tests it in the same statement as the insert or update:
// under READ COMMITTED, a statement that waited for the lock tests the row as the transaction
// holding it left it (https://www.postgresql.org/docs/current/transaction-iso.html#XACT-READ-COMMITTED),
// so writes of one account at the limit pass one at a time and exactly the limit pass.
//
// Lock order: every statement of the service that changes a note's size locks the usage row
// before the note's row (the edit here, the delete in notes.ts; an insert's note is new), so
// two of them never wait for each other in a cycle.
import { bound } from '../note-quota.js'
import { type NotePatch, type NoteQuota, NoteQuotaExceededError, type NoteRecord, type NoteUsage } from '../types.js'
import type { Query } from './query.js'
import { NOTE_COLUMNS, type NoteRow, encodeText, noteFromRow } from './rows.js'

interface UsageRow {
  notes: string
  bytes: string
}

const usageFromRow = (row: UsageRow): NoteUsage => ({ notes: Number(row.notes), bytes: Number(row.bytes) })

export class PostgresQuota {
  constructor(private readonly query: Query) {}

  /** Store.insertNote with a quota: false when the account is gone. */
  async insertNote(note: NoteRecord, quota: NoteQuota): Promise<boolean> {
    const title = encodeText(note.title)
    const content = encodeText(note.content)
    const tags = note.tags.map(encodeText)
    try {
      const inserted = await this.query(
        'notes.insertWithinQuota',
        `INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8 FROM account_usage
         WHERE user_id = $2 AND notes < $9 AND bytes + note_bytes($3, $4, $5) <= $10
         FOR UPDATE`,
        [note._id, note.userId, title, content, tags, note.isPinned, note.createdOn, note.updatedOn, bound(quota.notes), bound(quota.bytes)],
      )
      if (inserted.rowCount === 1) return true
    } catch (err) {
      // foreign_key_violation: the account went without its usage row (only with triggers off).
      if ((err as { code?: unknown }).code === '23503') return false
      throw err
    }
    // Refused: say which limit, or that the account (and so its usage row) is gone.
    const usage = await this.usage(note.userId)
    if (!usage) return false
    throw new NoteQuotaExceededError(usage.notes >= bound(quota.notes) ? 'notes' : 'bytes')
  }

  /**
   * Store.updateNote of a patch that resizes the note: locks the usage row, then updates the note
   * when it does not grow, or grows within quota.bytes. Used with every resizing patch, quota or
   * not (a quota of 0 passes everything), for the lock order.
   */
  async updateNote(userId: string, noteId: string, patch: NotePatch, updatedOn: string, quota: NoteQuota): Promise<NoteRecord | undefined> {
    const { rows } = await this.query<NoteRow>(
      'notes.updateWithinQuota',
      `UPDATE notes n SET
         title = COALESCE($3, n.title),
         content = COALESCE($4, n.content),
         tags = COALESCE($5::text[], n.tags),
         is_pinned = COALESCE($6, n.is_pinned),
         updated_on = $7
       FROM (SELECT bytes FROM account_usage WHERE user_id = $1 FOR UPDATE) u
       WHERE n.user_id = $1 AND n.id = $2
         AND note_bytes(COALESCE($3, n.title), COALESCE($4, n.content), COALESCE($5::text[], n.tags))
             - note_bytes(n.title, n.content, n.tags) <= GREATEST(0, $8 - u.bytes)
       RETURNING ${NOTE_COLUMNS}`,
      [
        userId,
        noteId,
        patch.title === undefined ? null : encodeText(patch.title),
        patch.content === undefined ? null : encodeText(patch.content),
        patch.tags === undefined ? null : patch.tags.map(encodeText),
        patch.isPinned ?? null,
        updatedOn,
        bound(quota.bytes),
      ],
    )
    if (rows[0]) return noteFromRow(rows[0])
    const found = await this.query('notes.exists', 'SELECT 1 FROM notes WHERE user_id = $1 AND id = $2', [userId, noteId])
    if (found.rowCount === 1) throw new NoteQuotaExceededError('bytes')
    return undefined
  }

  async usage(userId: string): Promise<NoteUsage | undefined> {
    const { rows } = await this.query<UsageRow>('usage.ofAccount', 'SELECT notes, bytes FROM account_usage WHERE user_id = $1', [userId])
    return rows[0] && usageFromRow(rows[0])
  }

  async accountsOver(quota: NoteQuota): Promise<number> {
    const { rows } = await this.query<{ n: string }>(
      'usage.accountsOver',
      'SELECT count(*) AS n FROM account_usage WHERE notes > $1 OR bytes > $2',
      [bound(quota.notes), bound(quota.bytes)],
    )
    return Number(rows[0]?.n ?? 0)
  }
}
