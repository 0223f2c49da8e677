// What tells two notes with the same _id apart, for the import (src/transfer/import.ts): a
// record whose _id is already stored is skipped quietly only when it is the same note.
import type { NoteRecord } from './types.js'

const FIELDS = ['title', 'content', 'tags', 'isPinned', 'userId', 'createdOn', 'updatedOn'] as const
export type NoteField = (typeof FIELDS)[number]

const sameTags = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((tag, i) => tag === b[i])

/** The fields of `incoming` that differ from `stored`, in record order; empty when none does. */
export function noteDifferences(stored: NoteRecord, incoming: NoteRecord): NoteField[] {
  return FIELDS.filter((field) => (field === 'tags' ? !sameTags(stored.tags, incoming.tags) : stored[field] !== incoming[field]))
}
