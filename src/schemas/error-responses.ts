// The error answers several features share; a feature's own are in its schema file. Fastify serialises error bodies
// through them, so they keep the handler's bytes: properties in its order ({error, message}), and no `const` on
// `message`, which fast-json-stringify would write instead of the value. `enum` and `pattern` only document the words
// (the harness checks).
import { Type } from '@sinclair/typebox'
import { DATABASE_UNREACHABLE, LOW_DISK_SPACE } from '../errors.js'

export const message = (options: { enum?: string[]; pattern?: string; description?: string } = {}) =>
  Type.Unsafe<string>({ type: 'string', ...options })

/** `{error: true, message}`, the contract's usual error body. */
export const errorBody = (description: string, messages?: string[] | { pattern: string }, headers?: object) =>
  Type.Object(
    { error: Type.Literal(true), message: message(Array.isArray(messages) ? { enum: messages } : (messages ?? {})) },
    { description, additionalProperties: false, ...(headers && { headers }) },
  )

/** The answer of a request whose body breaks its schema. */
export const BAD_REQUEST =
  'A required field is missing or falsy ("… is required"), a field has the wrong JSON type, is too long, ' +
  'holds an unpaired surrogate ("… must be valid Unicode text") or, for fullName, a control character ' +
  '("fullName must not contain control characters"), or the body is not valid UTF-8, not valid JSON or not an object.'

export const BadRequest = errorBody(BAD_REQUEST)

/** The bare 401: the plain text `Unauthorized`, never JSON (docs/contract.md, "The 401"). */
export const Unauthorized = {
  description: 'The Authorization header is missing, has no second part, or its token fails verification.',
  content: { 'text/plain': { schema: Type.Unsafe<string>({ type: 'string', enum: ['Unauthorized'] }) } },
}

const PayloadTooLarge = errorBody('The body is larger than BODY_LIMIT.', ['Request body is too large'])
const UnsupportedMediaType = errorBody('The body is not sent as application/json.', [
  'Content-Type must be application/json',
])

export const InsufficientStorage = errorBody(
  "The server's disk has less than MIN_FREE_DISK_MB free (SQLite store only); reads and deletes still work.",
  [LOW_DISK_SPACE],
)

const internalError = (text: string) => errorBody('An unexpected failure inside the service.', [text])
export const InternalError = internalError('Internal Server Error')
/** edit, delete and pin answer 500 with a trailing space (docs/contract.md, "Quirks kept"). */
export const InternalErrorTrailingSpace = internalError('Internal Server Error ')

export const ServiceUnavailable = errorBody('The database cannot be reached.', [DATABASE_UNREACHABLE])

/** What every route that reads a body can answer before its handler runs. */
export const bodyErrors = { 400: BadRequest, 413: PayloadTooLarge, 415: UnsupportedMediaType }
export const serverErrors = { 500: InternalError, 503: ServiceUnavailable }
/** What every route behind the token check can answer. */
export const authErrors = { 401: Unauthorized, ...serverErrors }
