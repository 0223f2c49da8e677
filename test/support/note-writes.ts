// Short call sites for the Store's note writes (store/notes.ts NoteWriteTerms, NoteDeletion, NoteWrite).
import assert from 'node:assert/strict'
import { newId } from '../../src/services/ids.js'
import type { NoteDeletion, NoteRecord, NoteWrite, NoteWriteTerms } from '../../src/store/types.js'

/** The terms of an edit as the service makes them: a fresh revision id (the quota and the revisions kept are the store's). */
export const terms = (): NoteWriteTerms => ({ revisionId: newId() })

/** A delete that erases the note at once with its history (TRASH_DAYS=0). */
export const erase = (): NoteDeletion => ({ trashedOn: undefined })

/** A delete that moves the note to the trash at `on` (now unless given). */
export const trash = (on: string = new Date().toISOString()): NoteDeletion => ({ trashedOn: on })

/** The note a write answers; undefined when the note was absent. Fails on a conflict, which no write without `expected` meets. */
export function noteOf(write: NoteWrite): NoteRecord | undefined {
  if (write === undefined) return undefined
  assert.ok('note' in write, `expected a note, got a conflict: ${JSON.stringify(write)}`)
  return write.note
}

/** The ISO time `ms` milliseconds after `iso`. */
export const msAfter = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString()
