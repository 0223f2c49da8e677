// The notes table's columns, derived from the note's schema (note-shape.ts): each field in the column
// of its name in snake_case (`_id` in `id`). Both drivers' statements, rows and stored JSON follow this
// one list (docs/architecture.md, "Adding a field to notes"); the trash's and the revisions' tables
// follow their records' schemas the same way.
import type { TObject, TSchema } from '@sinclair/typebox'
import {
  NOTE_INPUT_FIELDS,
  Note,
  type NoteInputField,
  type NoteRecord,
  StoredRevision,
  type StoredRevisionRecord,
  TrashedNote,
  type TrashedNoteRecord,
} from '../note-shape.js'

/** How a field is stored: one string, a list of strings, or a flag. */
export type ColumnKind = 'text' | 'texts' | 'flag'

/** A record's field and the column that stores it. */
export interface Column<Field extends string = keyof NoteRecord> {
  field: Field
  column: string
  kind: ColumnKind
}

export type NoteColumn = Column

function kindOf(field: string, schema: TSchema): ColumnKind {
  if (schema.type === 'string') return 'text'
  if (schema.type === 'boolean') return 'flag'
  if (schema.type === 'array' && (schema.items as TSchema).type === 'string') return 'texts'
  throw new Error(`note field ${field}: no column kind stores its schema (store/note-columns.ts)`)
}

const columnOf = (field: string) => (field === '_id' ? 'id' : field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))

/** Every field's column, in the schema's key order. */
const columnsOf = <R>(schema: TObject): readonly Column<keyof R & string>[] =>
  Object.entries(schema.properties).map(([field, fieldSchema]) => ({
    field: field as keyof R & string,
    column: columnOf(field),
    kind: kindOf(field, fieldSchema),
  }))

export const noteColumns = columnsOf<NoteRecord>(Note)
/** trashed_notes: a note's columns and deleted_on. */
export const trashedNoteColumns = columnsOf<TrashedNoteRecord>(TrashedNote)
/** note_revisions: each column but bytes. */
export const revisionColumns = columnsOf<StoredRevisionRecord>(StoredRevision)

/** The columns an edit may change. */
export const EDITABLE_COLUMNS = noteColumns.filter((c) => NOTE_INPUT_FIELDS.includes(c.field as NoteInputField))

/** The columns' names, comma-separated, for SELECT, INSERT and RETURNING. */
export const columnList = (columns: readonly Column<string>[]): string => columns.map((c) => c.column).join(', ')

/** The columns a record is read from, for SELECT and RETURNING (the stored JSON is read only where it is the answer). */
export const NOTE_COLUMN_LIST = columnList(noteColumns)

/** The fields whose columns `present` holds: what a migration's stored JSON carries, whatever later builds add. */
export const columnsPresent = (present: readonly string[]): NoteColumn[] =>
  noteColumns.filter((c) => present.includes(c.column))
