// The per-account note quota of the PostgreSQL driver (mirrors sqlite/quota.ts). Migration 5's
// trigger keeps each account's usage in account_usage (rows per shard); note_quota_check
// decides, under advisory locks on the account, whether a write may add to it (see the
// migration). A checked write is one statement: the check in a CTE, then the insert or update
// when it answered 'pass'. Far from the limits one account's writes run side by side, each
// holding one of 16 slots; near them the check answers 'retry' and the write runs again holding
// all 16, with exact sums, so 50 adds at once at the limit leave exactly the limit.
import { LIMITS } from '../../note-shape.js'
import { bound } from '../note-quota.js'
import { type NotePatch, type NoteQuota, NoteQuotaExceededError, type NoteRecord, type NoteUsage } from '../types.js'
import type { Query } from './query.js'
import { EDITABLE_COLUMNS, noteColumns } from '../note-columns.js'
import { NOTE_COLUMNS, type NoteRow, noteFromRow, noteInsertParams, noteValues, patchSet, patchValues, placeholder } from './rows.js'

/**
 * The most bytes one write can add to an account as stored: every UTF-16 unit of the largest
 * note the routes accept (docs/contract.md, "Field problems") at 6 bytes, what U+FFFF takes with
 * its escape (rows.ts). A check holding one slot leaves this much room for each other slot.
 */
export const MAX_WRITE_BYTES = 6 * (LIMITS.title + LIMITS.content + LIMITS.tags * LIMITS.tag)

/**
 * The placeholders of the fields whose bytes the quota counts, as note_quota_check takes them;
 * the tags typed, since a patch may leave them NULL.
 */
const sized = (columns: typeof noteColumns, first: number) =>
  `${placeholder(columns, first, 'title')}, ${placeholder(columns, first, 'content')}, ${placeholder(columns, first, 'tags')}::text[]`
const INSERTED = { userId: placeholder(noteColumns, 4, 'userId'), sized: sized(noteColumns, 4) }
const PATCHED_SIZED = sized(EDITABLE_COLUMNS, 6)

type Verdict = 'pass' | 'retry' | 'notes' | 'bytes' | 'missing'

interface UsageRow {
  notes: string
  bytes: string
}

export class PostgresQuota {
  constructor(private readonly query: Query) {}

  /** Store.insertNote with a quota: false when the account is gone. */
  async insertNote(note: NoteRecord, quota: NoteQuota): Promise<boolean> {
    const values = [bound(quota.notes), bound(quota.bytes), MAX_WRITE_BYTES, ...noteValues(note)]
    try {
      for (const exclusive of [false, true]) {
        const { rows } = await this.query<{ v: Verdict }>(
          exclusive ? 'notes.insertWithinQuotaExclusive' : 'notes.insertWithinQuota',
          `WITH verdict AS (SELECT note_quota_check(${INSERTED.userId}, NULL, ${INSERTED.sized}, ${exclusive}, $1, $2, $3) AS v),
           added AS (INSERT INTO notes (${NOTE_COLUMNS}) SELECT ${noteInsertParams(4)} FROM verdict WHERE v = 'pass')
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
    const values = [userId, noteId, updatedOn, bound(quota.bytes), MAX_WRITE_BYTES, ...patchValues(patch)]
    for (const exclusive of [false, true]) {
      // The CTE `changed` runs once the verdict is known (it reads it), and its RETURNING rows
      // come back beside the verdict.
      const { rows } = await this.query<NoteRow & { v: Verdict }>(
        exclusive ? 'notes.updateWithinQuotaExclusive' : 'notes.updateWithinQuota',
        `WITH verdict AS (SELECT note_quota_check($1, $2, ${PATCHED_SIZED}, ${exclusive}, 0, $4, $5) AS v),
         changed AS (
           UPDATE notes SET ${patchSet(6)}, updated_on = $3
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
