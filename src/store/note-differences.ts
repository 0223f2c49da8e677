// What tells two records with the same key apart, for the import (src/transfer/): a
// record whose key is already stored is skipped quietly only when it is the same record.
import type { TObject } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import {
  Note,
  type NoteRecord,
  StoredRevision,
  type StoredRevisionRecord,
  TrashedNote,
  type TrashedNoteRecord,
} from '../note-shape.js'

export type NoteField = Exclude<keyof NoteRecord, '_id'>
export type TrashedNoteField = Exclude<keyof TrashedNoteRecord, '_id'>
/** A revision is looked up within its note, by its _id or its editedOn: either may differ. */
export type RevisionField = Exclude<keyof StoredRevisionRecord, 'noteId'>

/** The fields of `incoming` that differ from `stored`, in the schema's key order, but `key` (equal by the look-up); empty when none does. */
function differencesBy<R, K extends keyof R>(schema: TObject, key: K) {
  const fields = Object.keys(schema.properties).filter((field) => field !== key) as Exclude<keyof R, K>[]
  return (stored: R, incoming: R) => fields.filter((field) => !Value.Equal(stored[field], incoming[field]))
}

export const noteDifferences = differencesBy<NoteRecord, '_id'>(Note, '_id')
export const trashedNoteDifferences = differencesBy<TrashedNoteRecord, '_id'>(TrashedNote, '_id')
export const revisionDifferences = differencesBy<StoredRevisionRecord, 'noteId'>(StoredRevision, 'noteId')

/** An import's outcome for a record whose key is stored: the same one, or the fields it differs in. */
export const sameOrDiffers = <F>(differs: F[]) => (differs.length === 0 ? ('exists' as const) : { differs })
