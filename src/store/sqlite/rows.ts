// The SQLite tables' rows mapped to records.
import type { SessionRecord, UserRecord } from '../accounts.js'
import type { NotePatch, NoteRecord } from '../../note-shape.js'
import {
  type Column,
  type ColumnKind,
  EDITABLE_COLUMNS,
  NOTE_COLUMN_LIST,
  type NoteColumn,
  noteColumns,
} from '../note-columns.js'
import { SESSION_COLUMNS, type SessionRow, type UserRow } from '../row-shapes.js'

export const INSERT_USER = `INSERT INTO users (id, full_name, email, email_key, password_hash, created_on)
  VALUES (@_id, @fullName, @email, @emailKey, @passwordHash, @createdOn)`

export const INSERT_SESSION = `INSERT INTO sessions (${SESSION_COLUMNS}) VALUES (@_id, @userId, @createdOn, @lastUsedOn, @client)`

export function userFromRow(row: UserRow): UserRecord {
  return {
    _id: row.id,
    fullName: row.full_name,
    email: row.email,
    emailKey: row.email_key,
    passwordHash: row.password_hash,
    createdOn: row.created_on,
    ...(row.tokens_not_before ? { tokensNotBefore: row.tokens_not_before } : {}),
  }
}

/** The write's answer, or false when it broke a foreign key: its account is gone. */
export function unlessAccountGone(write: () => boolean): boolean {
  try {
    return write()
  } catch (err) {
    if ((err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return false
    throw err
  }
}

export function sessionFromRow(row: SessionRow): SessionRecord {
  return {
    _id: row.id,
    userId: row.user_id,
    createdOn: row.created_on,
    lastUsedOn: row.last_used_on,
    client: row.client,
  }
}

/** A notes row (or a trash or revision row) as better-sqlite3 reads it: strings, the tags as JSON text, flags as 0 or 1. */
export type NoteRow = Record<string, string | number>

/** The record `columns` describe, read from its row. */
export function recordFromRow<R>(columns: readonly Column<keyof R & string>[], row: NoteRow): R {
  const record: Record<string, unknown> = {}
  for (const { field, column, kind } of columns) {
    const value = row[column]
    record[field] = kind === 'texts' ? JSON.parse(value as string) : kind === 'flag' ? value === 1 : value
  }
  return record as R
}

export const noteFromRow = (row: NoteRow): NoteRecord => recordFromRow(noteColumns, row)

/** A field's value as its column holds it. */
function columnValue(kind: ColumnKind, value: unknown): unknown {
  return kind === 'texts' ? JSON.stringify(value) : kind === 'flag' ? (value ? 1 : 0) : value
}

/** The expression of the stored JSON: the note's bytes as JSON.stringify writes its record. */
export function noteJsonExpression(columns: readonly NoteColumn[]): string {
  const value = ({ column, kind }: NoteColumn) =>
    kind === 'texts'
      ? `json(${column})`
      : kind === 'flag'
        ? `json(CASE ${column} WHEN 1 THEN 'true' ELSE 'false' END)`
        : column
  return `json_object(${columns.map((c) => `'${c.field}', ${value(c)}`).join(', ')})`
}

export { NOTE_COLUMN_LIST as NOTE_COLUMNS }

/** INSERT's column list and its named parameters (bound by noteParams). */
export const NOTE_INSERT = `(${NOTE_COLUMN_LIST}) VALUES (${noteColumns.map((c) => `@${c.field}`).join(', ')})`

/** The record's values as its columns hold them, named by field: the parameters of `@field` placeholders. */
export function recordParams<R>(columns: readonly Column<keyof R & string>[], record: R): Record<string, unknown> {
  return Object.fromEntries(columns.map(({ field, kind }) => [field, columnValue(kind, record[field])]))
}

export const noteParams = (note: NoteRecord): Record<string, unknown> => recordParams(noteColumns, note)

/** UPDATE's assignments of the editable columns: COALESCE keeps a column whose parameter is NULL (not in the patch). */
export const PATCH_SET = EDITABLE_COLUMNS.map(({ field, column }) => `${column} = COALESCE(@${field}, ${column})`).join(
  ', ',
)

export function patchParams(patch: NotePatch): Record<string, unknown> {
  return Object.fromEntries(
    EDITABLE_COLUMNS.map(({ field, kind }) => {
      const value = patch[field as keyof NotePatch]
      return [field, value === undefined ? null : columnValue(kind, value)]
    }),
  )
}
