// The note quota's check in the PostgreSQL driver (mirrors sqlite/quota.ts): migration 5's note_quota_check, which a
// checked write (notes.ts) calls in a CTE of its one statement, writing only when it answers 'pass'; on 'retry'
// (near a limit) the write runs again holding all 16 of the account's slots, with exact sums.
import { LIMITS } from '../../note-shape.js'
import { NoteQuotaExceededError } from '../errors.js'
import { bound } from '../note-quota.js'
import type { NoteQuota } from '../notes.js'
import type { Placeholders } from './rows.js'

// The most bytes one write can add as stored: every UTF-16 unit of the largest note accepted at
// 6 bytes, U+FFFF with its escape (rows.ts). A check holding one slot leaves this room per other slot.
const MAX_WRITE_BYTES = 6 * (LIMITS.title + LIMITS.content + LIMITS.tags * LIMITS.tag)

/** note_quota_check's answer: 'pass', 'retry' (again with every slot), the limit met, or 'missing' (no such note). */
export type Verdict = 'pass' | 'retry' | 'notes' | 'bytes' | 'missing'

/** The placeholders of the fields the quota counts, as note_quota_check takes them (tags typed: a patch may leave them NULL). */
export type Sized = Record<'title' | 'content' | 'tags', string>

/**
 * note_quota_check's call for a write of `sized` to `note` of `user` (note NULL: an insert), its bounds added to
 * `params`; `exclusive`: holding all 16 slots. Only the limits a write can pass are checked: an edit does not add a note.
 */
export function quotaCheck(
  params: Placeholders,
  user: string,
  note: string,
  sized: Sized,
  quota: NoteQuota,
  exclusive: boolean,
): string {
  const maxNotes = note === 'NULL' ? params.$(bound(quota.notes)) : '0'
  return `note_quota_check(${user}, ${note}, ${sized.title}, ${sized.content}, ${sized.tags}::text[], ${exclusive}, ${maxNotes}, ${params.$(bound(quota.bytes))}, ${params.$(MAX_WRITE_BYTES)})`
}

/** A checked write holding one slot, then, when the check answers 'retry', holding all 16. */
export async function withinQuota<T>(write: (exclusive: boolean) => Promise<T | 'retry'>): Promise<T> {
  for (const exclusive of [false, true]) {
    const outcome = await write(exclusive)
    if (outcome !== 'retry') return outcome
  }
  throw new Error('note_quota_check answered retry with the exclusive lock')
}

/** Throws the refusal of a verdict that names a limit. */
export function refuseOver(verdict: string | null | undefined): void {
  if (verdict === 'notes' || verdict === 'bytes') throw new NoteQuotaExceededError(verdict)
}
