// The notes table's columns, derived from the note's schema (note-shape.ts): each field in the column
// of its name in snake_case (`_id` in `id`). Both drivers' statements, rows and stored JSON follow this
// one list (docs/architecture.md, "Adding a field to notes").
import type { TSchema } from '@sinclair/typebox'
import { NOTE_INPUT_FIELDS, Note, type NoteInputField, type NoteRecord } from '../note-shape.js'

/** How a field is stored: one string, a list of strings, or a flag. */
export type ColumnKind = 'text' | 'texts' | 'flag'

export interface NoteColumn {
  field: keyof NoteRecord
  column: string
  kind: ColumnKind
}

function kindOf(field: string, schema: TSchema): ColumnKind {
  if (schema.type === 'string') return 'text'
  if (schema.type === 'boolean') return 'flag'
  if (schema.type === 'array' && (schema.items as TSchema).type === 'string') return 'texts'
  throw new Error(`note field ${field}: no column kind stores its schema (store/note-columns.ts)`)
}

const columnOf = (field: string) => (field === '_id' ? 'id' : field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))

/** Every field's column, in the note's key order. */
export const noteColumns: readonly NoteColumn[] = Object.entries(Note.properties).map(([field, schema]) => ({
  field: field as keyof NoteRecord,
  column: columnOf(field),
  kind: kindOf(field, schema),
}))

/** The columns an edit may change. */
export const EDITABLE_COLUMNS = noteColumns.filter((c) => NOTE_INPUT_FIELDS.includes(c.field as NoteInputField))

/** The columns a record is read from, for SELECT and RETURNING (the stored JSON is read only where it is the answer). */
export const NOTE_COLUMN_LIST = noteColumns.map((c) => c.column).join(', ')

/** The fields whose columns `present` holds: what a migration's stored JSON carries, whatever later builds add. */
export const columnsPresent = (present: readonly string[]): NoteColumn[] => noteColumns.filter((c) => present.includes(c.column))
