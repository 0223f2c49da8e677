// What both drivers' quota statements share (Store.insertNote, Store.updateNote), under the quota a store is opened
// with (limits.ts).
import type { NotePatch } from '../note-shape.js'
import type { NoteQuota } from './notes.js'

/** A limit of 0 is no limit: a bound no account reaches (and a safe integer for any driver). */
export const bound = (limit: number): number => (limit > 0 ? limit : Number.MAX_SAFE_INTEGER)

/** With no limit, a driver writes without reading the account's usage. */
export const isLimited = (quota: NoteQuota): boolean => quota.notes > 0 || quota.bytes > 0

/** Only an edit that can change a note's size is held to quota.bytes. */
export const resizes = (patch: NotePatch): boolean =>
  patch.title !== undefined || patch.content !== undefined || patch.tags !== undefined
