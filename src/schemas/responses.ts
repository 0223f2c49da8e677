// 200 bodies go through these schemas (fast-json-stringify): faster than JSON.stringify, and an unlisted field never leaks.
import { Type } from '@sinclair/typebox'
import { Note } from '../note-shape.js'

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
