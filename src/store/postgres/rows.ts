// The PostgreSQL tables' rows mapped to records. Its text cannot hold U+0000, which JSON and SQLite
// accept, so every stored string is escaped, one-to-one (the unique email key keeps its meaning): U+0000
// as U+FFFF '0', U+FFFF (a noncharacter) as U+FFFF U+FFFF. Other strings are stored as they are.
import { type Column, type ColumnKind, EDITABLE_COLUMNS, NOTE_COLUMN_LIST, noteColumns } from '../note-columns.js'
import type { SessionRow, UserRow } from '../row-shapes.js'
import type { SessionRecord, UserRecord } from '../accounts.js'
import type { NotePatch, NoteRecord } from '../../note-shape.js'

const ESCAPE = '\uffff'

export function encodeText(s: string): string {
  if (!s.includes('\u0000') && !s.includes(ESCAPE)) return s
  // The escape character first, so the escapes made for NUL are not escaped again.
  return s.replaceAll(ESCAPE, ESCAPE + ESCAPE).replaceAll('\u0000', `${ESCAPE}0`)
}

export function decodeText(s: string): string {
  if (!s.includes(ESCAPE)) return s
  return s.replace(/\uffff([\uffff0])/g, (_m, c: string) => (c === ESCAPE ? ESCAPE : '\u0000'))
}

/** decodeText for JSON PostgreSQL built from escaped strings, but a stored U+0000 as JSON.stringify writes it: \u0000. */
export function decodeJsonText(json: string): string {
  if (!json.includes(ESCAPE)) return json
  return json.replace(/\uffff([\uffff0])/g, (_m, c: string) => (c === ESCAPE ? ESCAPE : '\\u0000'))
}

/** A notes row (or a trash or revision row) as node-postgres reads it: strings, text[] as string arrays, booleans. */
export type NoteRow = Record<string, string | string[] | boolean>

/** A field's value as its column holds it, escaped. */
function columnValue(kind: ColumnKind, value: unknown): unknown {
  return kind === 'texts' ? (value as string[]).map(encodeText) : kind === 'text' ? encodeText(value as string) : value
}

/** The record's values in `columns` order, escaped. */
export const recordValues = <R>(columns: readonly Column<keyof R & string>[], record: R): unknown[] =>
  columns.map(({ field, kind }) => columnValue(kind, record[field]))

/** The note's values in noteColumns order, for NOTE_INSERT's placeholders. */
export const noteValues = (note: NoteRecord): unknown[] => recordValues(noteColumns, note)

/** The placeholder of `field` among values that start at $`first` in `columns` order. */
export const placeholder = (columns: readonly Column<string>[], first: number, field: string): string =>
  `$${first + columns.findIndex((c) => c.field === field)}`

/** The placeholders of noteValues, from $`first`. */
export const noteInsertParams = (first: number): string => noteColumns.map((_, i) => `$${first + i}`).join(', ')

/** A statement's values, each named by the placeholder it is given in turn: a statement names its values instead of counting them. */
export class Placeholders {
  readonly values: unknown[] = []

  $(value: unknown): string {
    return `$${this.values.push(value)}`
  }
}

/**
 * UPDATE's assignments of the patch, each editable column's value given a placeholder in turn, NULL for a field the
 * patch leaves alone (COALESCE keeps the column); `at`: each field's placeholder.
 */
export function patchSet(params: Placeholders, patch: NotePatch): { set: string; at: Record<string, string> } {
  const at: Record<string, string> = {}
  const set = EDITABLE_COLUMNS.map(({ field, column, kind }) => {
    const value = patch[field as keyof NotePatch]
    at[field] = params.$(value === undefined ? null : columnValue(kind, value))
    return `${column} = COALESCE(${at[field]}${kind === 'texts' ? '::text[]' : ''}, ${column})`
  })
  return { set: set.join(', '), at }
}

/** A user's INSERT, bound by userValues. */
export const INSERT_USER = `INSERT INTO users (id, full_name, email, email_key, password_hash, created_on)
  VALUES ($1, $2, $3, $4, $5, $6)`

export const userValues = (u: UserRecord): unknown[] => [
  u._id,
  encodeText(u.fullName),
  encodeText(u.email),
  encodeText(u.emailKey),
  u.passwordHash,
  u.createdOn,
]

export function userFromRow(row: UserRow): UserRecord {
  return {
    _id: row.id,
    fullName: decodeText(row.full_name),
    email: decodeText(row.email),
    emailKey: decodeText(row.email_key),
    passwordHash: row.password_hash,
    createdOn: row.created_on,
    ...(row.tokens_not_before ? { tokensNotBefore: row.tokens_not_before } : {}),
  }
}

export function sessionFromRow(row: SessionRow): SessionRecord {
  return {
    _id: row.id,
    userId: row.user_id,
    createdOn: row.created_on,
    lastUsedOn: row.last_used_on,
    client: decodeText(row.client),
  }
}

/** The record `columns` describe, read from its row and unescaped. */
export function recordFromRow<R>(columns: readonly Column<keyof R & string>[], row: NoteRow): R {
  const record: Record<string, unknown> = {}
  for (const { field, column, kind } of columns) {
    const value = row[column]
    record[field] =
      kind === 'texts' ? (value as string[]).map(decodeText) : kind === 'text' ? decodeText(value as string) : value
  }
  return record as R
}

export const noteFromRow = (row: NoteRow): NoteRecord => recordFromRow(noteColumns, row)

export { NOTE_COLUMN_LIST as NOTE_COLUMNS }
