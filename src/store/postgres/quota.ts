// The per-account note quota of the PostgreSQL driver (mirrors sqlite/quota.ts). Migration 5's
// trigger keeps each account's usage in account_usage (rows per shard); note_quota_check
// decides, under advisory locks on the account, whether a write may add to it (see the
// migration). A checked write is one statement: the check in a CTE, then the insert or update
// when it answered 'pass'. Far from the limits one account's writes run side by side, each
// holding one of 16 slots; near them the check answers 'retry' and the write runs again holding
// all 16, with exact sums, so 50 adds at once at the limit leave exactly the limit.
import { LIMITS } from '../../schemas/fields.js'
import { bound } from '../note-quota.js'
import { type NotePatch, type NoteQuota, NoteQuotaExceededError, type NoteRecord, type NoteUsage } from '../types.js'
import type { Query } from './query.js'
import { NOTE_COLUMNS, type NoteRow, encodeText, noteFromRow } from './rows.js'

/**
 * The most bytes one write can add to an account as stored: every UTF-16 unit of the largest
 * note the routes accept (docs/contract.md, "Field problems") at 6 bytes, what U+FFFF takes with
 * its escape (rows.ts). A check holding one slot leaves this much room for each other slot.
 */
export const MAX_WRITE_BYTES = 6 * (LIMITS.title + LIMITS.content + LIMITS.tags * LIMITS.tag)

type Verdict = 'pass' | 'retry' | 'notes' | 'bytes' | 'missing'

interface UsageRow {
  notes: string
  bytes: string
}

export class PostgresQuota {
  constructor(private readonly query: Query) {}

  /** Store.insertNote with a quota: false when the account is gone. */
  async insertNote(note: NoteRecord, quota: NoteQuota): Promise<boolean> {
    const values = [
      note._id,
      note.userId,
      encodeText(note.title),
      encodeText(note.content),
      note.tags.map(encodeText),
      note.isPinned,
      note.createdOn,
      note.updatedOn,
      bound(quota.notes),
      bound(quota.bytes),
      MAX_WRITE_BYTES,
    ]
    try {
      for (const exclusive of [false, true]) {
        const { rows } = await this.query<{ v: Verdict }>(
          exclusive ? 'notes.insertWithinQuotaExclusive' : 'notes.insertWithinQuota',
          `WITH verdict AS (SELECT note_quota_check($2, NULL, $3, $4, $5, ${exclusive}, $9, $10, $11) AS v),
           added AS (
             INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
             SELECT $1, $2, $3, $4, $5, $6, $7, $8 FROM verdict WHERE v = 'pass'
           )
           SELECT v FROM verdict`,
          values,
        )
        const verdict = rows[0]?.v
        if (verdict === 'pass') return true
        if (verdict === 'notes' || verdict === 'bytes') throw new NoteQuotaExceededError(verdict)
      }
    } catch (err) {
      // foreign_key_violation: notes.user_id names no account (Store.insertNote).
      if ((err as { code?: unknown }).code === '23503') return false
      throw err
    }
    throw new Error('note_quota_check answered retry with the exclusive lock')
  }

  /** Store.updateNote of a patch that resizes the note, with a byte quota. */
  async updateNote(userId: string, noteId: string, patch: NotePatch, updatedOn: string, quota: NoteQuota): Promise<NoteRecord | undefined> {
    const values = [
      userId,
      noteId,
      patch.title === undefined ? null : encodeText(patch.title),
      patch.content === undefined ? null : encodeText(patch.content),
      patch.tags === undefined ? null : patch.tags.map(encodeText),
      patch.isPinned ?? null,
      updatedOn,
      bound(quota.bytes),
      MAX_WRITE_BYTES,
    ]
    for (const exclusive of [false, true]) {
      // The CTE `changed` runs once the verdict is known (it reads it), and its RETURNING rows
      // come back beside the verdict.
      const { rows } = await this.query<NoteRow & { v: Verdict }>(
        exclusive ? 'notes.updateWithinQuotaExclusive' : 'notes.updateWithinQuota',
        `WITH verdict AS (SELECT note_quota_check($1, $2, $3, $4, $5::text[], ${exclusive}, 0, $8, $9) AS v),
         changed AS (
           UPDATE notes SET
             title = COALESCE($3, title),
             content = COALESCE($4, content),
             tags = COALESCE($5::text[], tags),
             is_pinned = COALESCE($6, is_pinned),
             updated_on = $7
           WHERE user_id = $1 AND id = $2 AND (SELECT v FROM verdict) = 'pass'
           RETURNING ${NOTE_COLUMNS}
         )
         SELECT verdict.v, changed.* FROM verdict LEFT JOIN changed ON true`,
        values,
      )
      const row = rows[0]
      if (row?.v === 'pass') return row.id ? noteFromRow(row) : undefined
      if (row?.v === 'bytes') throw new NoteQuotaExceededError('bytes')
      if (row?.v !== 'retry') return undefined // 'missing'
    }
    throw new Error('note_quota_check answered retry with the exclusive lock')
  }

  async usage(userId: string, accountExists: () => Promise<boolean>): Promise<NoteUsage | undefined> {
    const { rows } = await this.query<UsageRow>(
      'usage.ofAccount',
      'SELECT coalesce(sum(notes), 0) AS notes, coalesce(sum(bytes), 0) AS bytes FROM account_usage WHERE user_id = $1',
      [userId],
    )
    const row = rows[0]
    if (!row || (row.notes === '0' && row.bytes === '0' && !(await accountExists()))) return undefined
    return { notes: Number(row.notes), bytes: Number(row.bytes) }
  }

  async accountsOver(quota: NoteQuota): Promise<number> {
    const { rows } = await this.query<{ n: string }>(
      'usage.accountsOver',
      `SELECT count(*) AS n FROM (SELECT 1 FROM account_usage GROUP BY user_id
         HAVING sum(notes) > $1 OR sum(bytes) > $2) AS over`,
      [bound(quota.notes), bound(quota.bytes)],
    )
    return Number(rows[0]?.n ?? 0)
  }
}
