// Request schemas (JSON Schema through TypeBox), validated by Fastify's Ajv before a handler
// runs. Size limits come from decisions.md ("Limits on sizes"). Falsy values have already been
// dropped by the route (they count as missing), so `required` answers for them too.
import { Type } from '@sinclair/typebox'

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

/** Answers for a missing (or falsy) required field, in the specification's words. */
export const REQUIRED_MESSAGES: Readonly<Record<string, string>> = {
  fullName: 'Full Name is required',
  email: 'Email is required',
  password: 'Password is required',
  title: 'Title is required',
  content: 'content is required',
  query: 'Search query is required',
}

/** The add-note "is required" answers carry no `error` key (spec §4, POST /add-note rules 1-2). */
export const BARE_REQUIRED_FIELDS: ReadonlySet<string> = new Set(['title', 'content'])

export const fullName = Type.String({ maxLength: LIMITS.fullName })
export const email = Type.String({ maxLength: LIMITS.email })
export const password = Type.String({ maxLength: LIMITS.password })
export const title = Type.String({ maxLength: LIMITS.title })
export const content = Type.String({ maxLength: LIMITS.content })
export const tags = Type.Array(Type.String({ maxLength: LIMITS.tag }), { maxItems: LIMITS.tags })
export const isPinned = Type.Boolean()

export const noteIdParams = Type.Object({ noteId: Type.String() })

