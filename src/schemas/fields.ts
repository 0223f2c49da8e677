// Request schemas, validated by Fastify's Ajv before a handler runs, in the order of docs/contract.md, "Checking order".
// Falsy values were dropped by the route, so `required` answers for them too. String fields carry WELL_FORMED (unicode.ts):
// an unpaired surrogate is a 400 naming the field. fullName carries NAME_TEXT instead, which also refuses control
// characters: a name is shown on other people's screens and printed by the operator commands (docs/compatibility.md).
import { Type } from '@sinclair/typebox'
import { LIMITS, text } from '../note-shape.js'
import { NAME_TEXT } from '../unicode.js'
import { CHANGES_LIMIT } from '../services/changes.js'

/** Answers for a missing (or falsy) required field, in the contract's words. */
export const REQUIRED_MESSAGES: Readonly<Record<string, string>> = {
  fullName: 'Full Name is required',
  email: 'Email is required',
  password: 'Password is required',
  currentPassword: 'Current password is required',
  newPassword: 'New password is required',
  title: 'Title is required',
  content: 'content is required',
  query: 'Search query is required',
}

/** Answers for a number field (query string digits) out of its range, or not digits. */
export const RANGE_MESSAGES: Readonly<Record<string, string>> = {
  limit: `limit must be an integer from 1 to ${CHANGES_LIMIT.max}`,
}

/** The add-note "is required" answers carry no `error` key (docs/contract.md, "POST /add-note"). */
export const BARE_REQUIRED_FIELDS: ReadonlySet<string> = new Set(['title', 'content'])

export const fullName = Type.String({
  maxLength: LIMITS.fullName,
  format: NAME_TEXT,
  description:
    'At most 200 characters of valid Unicode text, without control characters: none of U+0000–U+001F, ' +
    'U+007F–U+009F, or the bidirectional controls U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069.',
})
export const email = text(LIMITS.email)
export const password = text(LIMITS.password)
export const query = text(LIMITS.query)

export const noteIdParams = Type.Object({ noteId: Type.String() })
export const sessionIdParams = Type.Object({ sessionId: Type.String() })
