// What tells two records with the same _id apart, for the import (src/transfer/import.ts): a
// record whose _id is already stored is skipped quietly only when it is the same record.
import type { TObject } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { Note, type NoteRecord, StoredRevision, type StoredRevisionRecord, TrashedNote, type TrashedNoteRecord } from '../note-shape.js'

export type NoteField = Exclude<keyof NoteRecord, '_id'>
export type TrashedNoteField = Exclude<keyof TrashedNoteRecord, '_id'>
export type RevisionField = Exclude<keyof StoredRevisionRecord, '_id'>

/** The fields of `incoming` that differ from `stored`, in the schema's key order; empty when none does. */
function differencesBy<R extends { _id: string }>(schema: TObject) {
  const fields = Object.keys(schema.properties).filter((key) => key !== '_id') as Exclude<keyof R, '_id'>[]
  return (stored: R, incoming: R) => fields.filter((field) => !Value.Equal(stored[field], incoming[field]))
}

export const noteDifferences = differencesBy<NoteRecord>(Note)
export const trashedNoteDifferences = differencesBy<TrashedNoteRecord>(TrashedNote)
export const revisionDifferences = differencesBy<StoredRevisionRecord>(StoredRevision)
