// The note's shape, written once: request bodies, responses, stored columns and JSON, import and export, the web app's
// types and the tests' derive from it (docs/architecture.md, "Adding a field to notes"). A leaf, so every layer may read it.
import { type Static, Type } from '@sinclair/typebox'
import { WELL_FORMED } from './unicode.js'

/** Size limits of request fields, in characters (docs/contract.md, "Field problems"). */
export const LIMITS = {
  fullName: 200,
  email: 254,
  password: 1024,
  title: 1000,
  content: 100_000,
  tags: 100,
  tag: 100,
  query: 500,
} as const

/** A string field of at most `maxLength` characters that UTF-8 can carry. */
export const text = (maxLength: number) => Type.String({ maxLength, format: WELL_FORMED })

/**
 * What a client writes, in the order Ajv checks the fields. A field added here is accepted by add-note (all but isPinned)
 * and edit-note, stored, returned, exported and imported; a note not given it holds its emptyInput value.
 */
export const noteInput = {
  title: text(LIMITS.title),
  content: text(LIMITS.content),
  tags: Type.Array(text(LIMITS.tag), { maxItems: LIMITS.tags }),
  isPinned: Type.Boolean(),
}

/** The fields add-note and the import require; every other one may be left out. */
export const REQUIRED_INPUT = ['title', 'content'] as const

/** A note as stored and as every endpoint returns it, keys in this order. */
export const Note = Type.Object({
  _id: Type.String(),
  ...noteInput,
  userId: Type.String(),
  createdOn: Type.String(),
  updatedOn: Type.String(),
})

export type NoteRecord = Static<typeof Note>
export type NoteInputField = keyof typeof noteInput
/** The fields an edit may change; absent keys are left alone. */
export type NotePatch = Partial<Pick<NoteRecord, NoteInputField>>
export const NOTE_INPUT_FIELDS = Object.keys(noteInput) as NoteInputField[]

/** Each input field's empty value ('', [], false): what a note holds for a field it was not given. */
export function emptyInput(): Pick<NoteRecord, NoteInputField> {
  const empty: Record<string, unknown> = {}
  for (const field of NOTE_INPUT_FIELDS) {
    const type: unknown = noteInput[field].type
    empty[field] = type === 'array' ? [] : type === 'boolean' ? false : ''
  }
  return empty as Pick<NoteRecord, NoteInputField>
}

/** A note in the trash: the note as it was deleted, and when. */
export const TrashedNote = Type.Object({ ...Note.properties, deletedOn: Type.String() })
export type TrashedNoteRecord = Static<typeof TrashedNote>

/** A state a note had before a change of its title, content or tags; `editedOn` is that state's updatedOn. */
export const Revision = Type.Object({
  _id: Type.String(),
  title: noteInput.title,
  content: noteInput.content,
  tags: noteInput.tags,
  isPinned: noteInput.isPinned,
  editedOn: Type.String(),
})
export type RevisionRecord = Static<typeof Revision>

/** A revision with what the store keeps beside it: whose, of which note, and when an edit replaced it (export and import). */
export const StoredRevision = Type.Object({
  _id: Type.String(),
  noteId: Type.String(),
  userId: Type.String(),
  ...Type.Omit(Revision, ['_id']).properties,
  replacedOn: Type.String(),
})
export type StoredRevisionRecord = Static<typeof StoredRevision>

/** The fields a revision restores: pinning is the note's own, not its text's. */
export const REVISED_FIELDS = ['title', 'content', 'tags'] as const satisfies readonly NoteInputField[]

/** The version after `previous` at time `now`: `now`, or one millisecond past `previous` when the clock has not moved on. */
export function nextVersion(previous: string, now: string): string {
  const after = Date.parse(previous) + 1
  return Number.isNaN(after) || Date.parse(now) >= after ? now : new Date(after).toISOString()
}

/** Whether `note` is at one of the `expected` versions (If-Match); undefined expects any version. */
export const holdsVersion = (note: NoteRecord, expected: readonly string[] | undefined): boolean =>
  expected === undefined || expected.includes(note.updatedOn)

/** Whether `after` changes what a revision keeps of `before`: its title, content or tags. */
export const revises = (before: NoteRecord, after: NoteRecord): boolean =>
  REVISED_FIELDS.some((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]))
