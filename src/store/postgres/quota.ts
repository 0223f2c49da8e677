// The per-account note quota of the PostgreSQL driver (mirrors sqlite/quota.ts). A checked write
// is one statement: migration 5's note_quota_check in a CTE, then the write when it answers 'pass';
// on 'retry' (near a limit) it runs again holding all 16 of the account's slots, with exact sums.
import { LIMITS } from '../../note-shape.js'
import { bound } from '../note-quota.js'
import { type NotePatch, type NoteQuota, NoteQuotaExceededError, type NoteRecord, type NoteUsage, type NoteWrite, type NoteWriteTerms } from '../types.js'
import { EDIT_VALUES, type EditRow, editOutcome, editStatement, editValues } from './notes.js'
import { type Query, unlessAccountGone } from './query.js'
import { EDITABLE_COLUMNS, noteColumns } from '../note-columns.js'
import { NOTE_COLUMNS, noteInsertParams, noteValues, patchValues, placeholder } from './rows.js'

// The most bytes one write can add as stored: every UTF-16 unit of the largest note accepted at
// 6 bytes, U+FFFF with its escape (rows.ts). A check holding one slot leaves this room per other slot.
const MAX_WRITE_BYTES = 6 * (LIMITS.title + LIMITS.content + LIMITS.tags * LIMITS.tag)

/** The placeholders of the quota's fields as note_quota_check takes them (tags typed: a patch may leave them NULL). */
const sized = (columns: typeof noteColumns, first: number) =>
  `${placeholder(columns, first, 'title')}, ${placeholder(columns, first, 'content')}, ${placeholder(columns, first, 'tags')}::text[]`
const INSERTED = { userId: placeholder(noteColumns, 4, 'userId'), sized: sized(noteColumns, 4) }
const PATCHED_SIZED = sized(EDITABLE_COLUMNS, EDIT_VALUES + 3)

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
    const values = [bound(quota.notes), bound(quota.bytes), MAX_WRITE_BYTES, ...noteValues(note)]
    return unlessAccountGone(withinQuota(async (exclusive) => {
      const { rows } = await this.query<{ v: Verdict }>(
        exclusive ? 'notes.insertWithinQuotaExclusive' : 'notes.insertWithinQuota',
        `WITH verdict AS (SELECT note_quota_check(${INSERTED.userId}, NULL, ${INSERTED.sized}, ${exclusive}, $1, $2, $3) AS v),
         added AS (INSERT INTO notes (${NOTE_COLUMNS}) SELECT ${noteInsertParams(4)} FROM verdict WHERE v = 'pass')
         SELECT v FROM verdict`,
        values,
      )
      const verdict = rows[0]?.v
      if (verdict === 'notes' || verdict === 'bytes') throw new NoteQuotaExceededError(verdict)
      return verdict === 'pass' ? true : 'retry'
    }))
  }

  /** Store.updateNote of a patch that resizes the note, with a byte quota. */
  async updateNote(userId: string, noteId: string, patch: NotePatch, now: string, terms: NoteWriteTerms & { quota: NoteQuota }): Promise<NoteWrite> {
    const values = [...editValues(userId, noteId, now, terms), bound(terms.quota.bytes), MAX_WRITE_BYTES, ...patchValues(patch)]
    return withinQuota(async (exclusive) => {
      const verdict = `note_quota_check($1, $2, ${PATCHED_SIZED}, ${exclusive}, 0, $${EDIT_VALUES + 1}, $${EDIT_VALUES + 2})`
      const { rows } = await this.query<EditRow>(
        exclusive ? 'notes.editWithinQuotaExclusive' : 'notes.editWithinQuota',
        editStatement(EDIT_VALUES + 2, verdict),
        values,
      )
      const outcome = editOutcome(rows, terms.expected)
      if (outcome === 'bytes') throw new NoteQuotaExceededError('bytes')
      if (outcome === 'retry') return 'retry'
      return typeof outcome === 'string' ? undefined : outcome // 'missing'
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
