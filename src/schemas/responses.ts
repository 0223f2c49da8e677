// 200 bodies go through these schemas (fast-json-stringify): faster than JSON.stringify, and an unlisted field never leaks.
import { Type } from '@sinclair/typebox'
import { Note, Revision, TrashedNote } from '../note-shape.js'

export const User = Type.Object({
  _id: Type.String(),
  fullName: Type.String(),
  email: Type.String(),
  createdOn: Type.String(),
})

const ok = Type.Literal(false)

export const CreateAccountOk = Type.Union([
  Type.Object({ error: ok, user: User, accessToken: Type.String(), message: Type.String() }),
  Type.Object({ error: Type.Literal(true), message: Type.String() }),
], { description: 'Registered; or {error: true, message: "User already exists"} when the email is taken.' })
export const LoginOk = Type.Object(
  { error: ok, message: Type.String(), email: Type.String(), accessToken: Type.String() },
  { description: "Logged in: a new access token, and the account's email." },
)
export const GetUserOk = Type.Object({ user: User, message: Type.String() }, { description: 'The user of the token.' })
export const NoteOk = Type.Object({ error: ok, note: Note, message: Type.String() }, { description: 'The note, as stored after the change.' })
export const NotesOk = Type.Object(
  { error: ok, notes: Type.Array(Note), message: Type.String() },
  { description: 'The notes: pinned first, then newest createdOn, then _id descending.' },
)
export const TrashOk = Type.Object(
  { error: ok, notes: Type.Array(TrashedNote), message: Type.String() },
  { description: 'The notes in the trash, each with deletedOn: most recently deleted first.' },
)
export const DoneOk = Type.Object({ error: ok, message: Type.String() }, { description: 'Done.' })
export const TrashEmptiedOk = Type.Object(
  { error: ok, deleted: Type.Integer(), message: Type.String() },
  { description: 'How many notes the trash held, now erased for good.' },
)
export const HistoryOk = Type.Object(
  { error: ok, revisions: Type.Array(Revision), message: Type.String() },
  { description: "The note's earlier states, newest first: each as it was before a change of title, content or tags." },
)
export const ChangesOk = Type.Object(
  {
    error: ok,
    changes: Type.Array(Type.Object({ noteId: Type.String(), note: Type.Union([Note, Type.Null()]) })),
    cursor: Type.String(),
    more: Type.Boolean(),
    message: Type.String(),
  },
  { description: "The account's changes after the cursor, oldest first, each note's latest once: null when it left the listing. more: read again at once." },
)
