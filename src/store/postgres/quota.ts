// The per-account note quota of the PostgreSQL driver (mirrors sqlite/quota.ts). A checked write
// is one statement: migration 5's note_quota_check in a CTE, then the write when it answers 'pass';
// on 'retry' (near a limit) it runs again holding all 16 of the account's slots, with exact sums.
import { LIMITS } from '../../schemas/fields.js'
import { bound } from '../note-quota.js'
import { type NotePatch, type NoteQuota, NoteQuotaExceededError, type NoteRecord, type NoteUsage } from '../types.js'
import type { Query } from './query.js'
import { NOTE_COLUMNS, type NoteRow, encodeText, noteFromRow } from './rows.js'

// The most bytes one write can add as stored: every UTF-16 unit of the largest note accepted at
// 6 bytes, U+FFFF with its escape (rows.ts). A check holding one slot leaves this room per other slot.
const MAX_WRITE_BYTES = 6 * (LIMITS.title + LIMITS.content + LIMITS.tags * LIMITS.tag)

type Verdict = 'pass' | 'retry' | 'notes' | 'bytes' | 'missing'

/** A checked write holding one slot, then, when the check answers 'retry', holding all 16. */
async function withinQuota<T>(write: (exclusive: boolean) => Promise<T | 'retry'>): Promise<T> {
  for (const exclusive of [false, true]) {
    const outcome = await write(exclusive)
    if (outcome !== 'retry') return outcome
  }
  throw new Error('note_quota_check answered retry with the exclusive lock')
}

export class PostgresQuota {
  constructor(private readonly query: Query) {}

  /** Store.insertNote with a quota: false when the account is gone. */
  async insertNote(note: NoteRecord, quota: NoteQuota): Promise<boolean> {
    const { _id, userId, title, content, tags, isPinned, createdOn, updatedOn } = note
    const text = [encodeText(title), encodeText(content), tags.map(encodeText)]
    const values = [_id, userId, ...text, isPinned, createdOn, updatedOn, bound(quota.notes), bound(quota.bytes), MAX_WRITE_BYTES]
    try {
      return await withinQuota(async (exclusive) => {
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
        if (verdict === 'notes' || verdict === 'bytes') throw new NoteQuotaExceededError(verdict)
        return verdict === 'pass' ? true : 'retry'
      })
    } catch (err) {
      // foreign_key_violation: notes.user_id names no account (Store.insertNote).
      if ((err as { code?: unknown }).code === '23503') return false
      throw err
    }
  }

  /** Store.updateNote of a patch that resizes the note, with a byte quota. */
  async updateNote(userId: string, noteId: string, patch: NotePatch, updatedOn: string, quota: NoteQuota): Promise<NoteRecord | undefined> {
    const title = patch.title === undefined ? null : encodeText(patch.title)
    const content = patch.content === undefined ? null : encodeText(patch.content)
    const tags = patch.tags?.map(encodeText) ?? null
    const values = [userId, noteId, title, content, tags, patch.isPinned ?? null, updatedOn, bound(quota.bytes), MAX_WRITE_BYTES]
    return withinQuota(async (exclusive) => {
      // `changed` reads the verdict, so it runs once the verdict is known.
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
      return row?.v === 'retry' ? 'retry' : undefined // 'missing'
    })
  }

  async usage(userId: string, accountExists: () => Promise<boolean>): Promise<NoteUsage | undefined> {
    const { rows } = await this.query<{ notes: string; bytes: string }>(
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
