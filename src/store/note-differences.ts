// What tells two notes with the same _id apart, for the import (src/transfer/import.ts): a
// record whose _id is already stored is skipped quietly only when it is the same note.
import { Value } from '@sinclair/typebox/value'
import { Note, type NoteRecord } from '../note-shape.js'

export type NoteField = Exclude<keyof NoteRecord, '_id'>
const FIELDS = Object.keys(Note.properties).filter((key) => key !== '_id') as NoteField[]

/** The fields of `incoming` that differ from `stored`, in record order; empty when none does. */
export function noteDifferences(stored: NoteRecord, incoming: NoteRecord): NoteField[] {
  return FIELDS.filter((field) => !Value.Equal(stored[field], incoming[field]))
}
