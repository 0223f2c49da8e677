// The original service's MongoDB documents as mongoexport writes them, mapped to and from our records. EJSON
// decodes them first (ObjectIds arrive as ObjectId, dates as Date); other fields (`__v`) are ignored.
import { EJSON, ObjectId } from 'bson'
import {
  NOTE_INPUT_FIELDS,
  type NoteInputField,
  type NoteRecord,
  REQUIRED_INPUT,
  Revision,
  type StoredRevisionRecord,
  type TrashedNoteRecord,
  emptyInput,
  noteInput,
} from '../note-shape.js'
import type { UserRecord } from '../store/types.js'
import type { EjsonMode } from './formats/ejson-records.js'
import { emailKeyOf } from '../services/accounts.js'
import { isWellFormedText, notWellFormedMessage } from '../unicode.js'

/** A record that cannot be imported; the message says which field and why. */
export class RecordError extends Error {
  override name = 'RecordError'
}

/** A user as read from the export: `password` is plain text or an argon2id hash. */
export type IncomingUser = Omit<UserRecord, 'passwordHash'> & { password: string }

const HEX_ID = /^[0-9a-fA-F]{24}$/

export type Doc = Record<string, unknown>

export function asDocument(value: unknown): Doc {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new RecordError('not a JSON object')
  return value as Doc
}

export function idOf(doc: Doc, field: string): string {
  const value = doc[field]
  if (value instanceof ObjectId) return value.toHexString()
  if (typeof value === 'string' && HEX_ID.test(value)) return value.toLowerCase()
  if (value === undefined || value === null) throw new RecordError(`${field} is missing`)
  throw new RecordError(`${field} is not an ObjectId`)
}

export function stringOf(doc: Doc, field: string, allowEmpty: boolean): string {
  const value = doc[field]
  if (value === undefined || value === null) throw new RecordError(`${field} is missing`)
  if (typeof value !== 'string') throw new RecordError(`${field} is not a string`)
  if (!isWellFormedText(value)) throw new RecordError(notWellFormedMessage(field))
  if (!allowEmpty && value.trim() === '') throw new RecordError(`${field} is empty`)
  return value
}

/** The first of `fields` present, as an ISO date; legacy and hand-made files carry ISO strings or epoch ms. */
function dateOf(doc: Doc, fields: string[], fallback: () => string): string {
  for (const field of fields) {
    const value = doc[field]
    if (value === undefined || value === null) continue
    const date =
      value instanceof Date
        ? value
        : typeof value === 'string' || typeof value === 'number'
          ? new Date(value)
          : undefined
    if (!date || Number.isNaN(date.getTime())) throw new RecordError(`${field} is not a date`)
    return date.toISOString()
  }
  return fallback()
}

/** A date of notes-service's own records (trash, history): its export always writes it, so none is guessed. */
export const requiredDateOf = (doc: Doc, field: string) =>
  dateOf(doc, [field], () => {
    throw new RecordError(`${field} is missing`)
  })

/** An ObjectId carries its creation second: the best date for a record that has none. */
const idTime = (id: string) => () => ObjectId.createFromHexString(id).getTimestamp().toISOString()

export function userFromDocument(value: unknown): IncomingUser {
  const doc = asDocument(value)
  const _id = idOf(doc, '_id')
  const email = stringOf(doc, 'email', false).trim()
  return {
    _id,
    fullName: stringOf(doc, 'fullName', true),
    email,
    emailKey: emailKeyOf(email),
    password: stringOf(doc, 'password', false),
    createdOn: dateOf(doc, ['createdOn', 'createdAt'], idTime(_id)),
  }
}

/** An input field of a note document, checked as the routes check it; absent, its empty value. */
function noteFieldOf(doc: Doc, field: NoteInputField, empty: unknown): unknown {
  const value = doc[field]
  if ((value === undefined || value === null) && !(REQUIRED_INPUT as readonly string[]).includes(field)) return empty
  const type = noteInput[field].type as unknown
  if (type === 'string') return stringOf(doc, field, true)
  if (type === 'boolean') {
    if (typeof value !== 'boolean') throw new RecordError(`${field} is not a boolean`)
    return value
  }
  if (!Array.isArray(value) || !value.every((t) => typeof t === 'string'))
    throw new RecordError(`${field} is not an array of strings`)
  if (!value.every(isWellFormedText)) throw new RecordError(notWellFormedMessage(field))
  return value
}

/** A document of the `notes` collection. Missing `tags`, `isPinned` and dates get the original's defaults. */
export function noteFromDocument(value: unknown): NoteRecord {
  const doc = asDocument(value)
  const _id = idOf(doc, '_id')
  // Checked in the order the routes check them (note-shape.ts): title, content, then tags.
  const empty = emptyInput()
  const input = Object.fromEntries(NOTE_INPUT_FIELDS.map((field) => [field, noteFieldOf(doc, field, empty[field])]))
  const createdOn = dateOf(doc, ['createdOn', 'createdAt'], idTime(_id))
  return {
    _id,
    ...(input as Pick<NoteRecord, NoteInputField>),
    userId: idOf(doc, 'userId'),
    createdOn,
    // The original schema has no updatedOn: a note never edited there was last changed when made.
    updatedOn: dateOf(doc, ['updatedOn', 'updatedAt'], () => createdOn),
  }
}

/** A document of notes-service's trash export: a note document, read as one, and when it was deleted. */
export function trashedNoteFromDocument(value: unknown): TrashedNoteRecord {
  const note = noteFromDocument(value)
  return { ...note, deletedOn: requiredDateOf(value as Doc, 'deletedOn') }
}

/** The input fields a revision keeps, checked as a note's are. */
const REVISION_INPUT_FIELDS = NOTE_INPUT_FIELDS.filter((field) => field in Revision.properties)

/** A document of notes-service's history export: a revision, the note and user it belongs to, and its two dates. */
export function revisionFromDocument(value: unknown): StoredRevisionRecord {
  const doc = asDocument(value)
  const _id = idOf(doc, '_id')
  const noteId = idOf(doc, 'noteId')
  const userId = idOf(doc, 'userId')
  const empty = emptyInput()
  const input = Object.fromEntries(REVISION_INPUT_FIELDS.map((field) => [field, noteFieldOf(doc, field, empty[field])]))
  return {
    _id,
    noteId,
    userId,
    ...(input as Pick<StoredRevisionRecord, NoteInputField & keyof StoredRevisionRecord>),
    editedOn: requiredDateOf(doc, 'editedOn'),
    replacedOn: requiredDateOf(doc, 'replacedOn'),
  }
}

/** Parses one Extended JSON text, canonical or relaxed. */
export function parseEjson(text: string): unknown {
  try {
    return EJSON.parse(text, { relaxed: true })
  } catch (err) {
    throw new RecordError(`not valid Extended JSON: ${err instanceof Error ? err.message : String(err)}`)
  }
}

/** A user as the original's collection holds it; the password only when asked (an argon2id hash). */
export function userToEjson(user: UserRecord, mode: EjsonMode, withPasswordHash: boolean): string {
  const { _id, fullName, email, passwordHash, createdOn } = user
  const doc = {
    _id: ObjectId.createFromHexString(_id),
    fullName,
    email,
    ...(withPasswordHash ? { password: passwordHash } : {}),
  }
  return EJSON.stringify({ ...doc, createdOn: new Date(createdOn) }, { relaxed: mode === 'relaxed' })
}

export {
  type EjsonMode,
  noteToEjson,
  recordToEjson,
  revisionToEjson,
  trashedNoteToEjson,
} from './formats/ejson-records.js'
