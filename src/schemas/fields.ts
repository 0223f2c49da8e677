// Request fields shared by several features, validated by Fastify's Ajv before a handler runs, in the order of
// docs/contract.md, "Checking order". Falsy values were dropped by the route, so `required` answers for them too. String
// fields carry WELL_FORMED (unicode.ts): an unpaired surrogate is a 400 naming the field. fullName carries NAME_TEXT
// instead, which also refuses control characters: a name is shown on other people's screens and printed by the
// operator commands (docs/compatibility.md). A feature's own fields stay in its schema file.
import { type TObject, type TSchema, Type } from '@sinclair/typebox'
import { LIMITS, text } from '../note-shape.js'
import { NAME_TEXT } from '../unicode.js'

/** A field's answers beside the general words of validation-errors.ts. */
export interface FieldAnswers {
  /** When it is missing or falsy; otherwise "<field> is required". */
  required?: string
  /** The "is required" answer carries no `error` key (docs/contract.md, "POST /add-note"). */
  bare?: boolean
  /** When its value has the wrong type or pattern (a number field's digits out of range, say). */
  invalid?: string
}

// A symbol key: neither Ajv nor the OpenAPI document sees it, and TypeBox's compositions keep it.
const ANSWERS = Symbol('field answers')

/** `schema` with its own answers. */
export const answered = <T extends TSchema>(schema: T, answers: FieldAnswers): T => ({ ...schema, [ANSWERS]: answers })

/** The answers of `field` in the object schema `object` (a route's body or query string); none when it has none. */
export function answersOf(object: unknown, field: string): FieldAnswers {
  const property: unknown = (object as Partial<TObject> | undefined)?.properties?.[field]
  return (property as { [ANSWERS]?: FieldAnswers } | undefined)?.[ANSWERS] ?? {}
}

export const fullName = answered(
  Type.String({
    maxLength: LIMITS.fullName,
    format: NAME_TEXT,
    description:
      'At most 200 characters of valid Unicode text, without control characters: none of U+0000–U+001F, ' +
      'U+007F–U+009F, or the bidirectional controls U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069.',
  }),
  { required: 'Full Name is required' },
)
export const email = answered(text(LIMITS.email), { required: 'Email is required' })
export const password = answered(text(LIMITS.password), { required: 'Password is required' })

export const noteIdParams = Type.Object({ noteId: Type.String() })

/** The public user: never a password or a hash. Shared by accounts and account management; the web app reads its type. */
export const User = Type.Object({
  _id: Type.String(),
  fullName: Type.String(),
  email: Type.String(),
  createdOn: Type.String(),
})
