// GET /get-changes (docs/contract.md, "Change feed"): the query, the answer, its errors and the OpenAPI operation.
import { Type } from '@sinclair/typebox'
import { CURSOR_EXPIRED } from '../errors.js'
import { Note } from '../note-shape.js'
import { CHANGES_LIMIT } from '../services/changes.js'
import { BadRequest, authErrors, errorBody } from './error-responses.js'
import { answered } from './fields.js'
import { operationsOf } from './operations.js'

/** limit's answer when its digits are out of range, or not digits. */
export const LIMIT_OUT_OF_RANGE = `limit must be an integer from 1 to ${CHANGES_LIMIT.max}`

const ChangesQuery = Type.Object({
  since: Type.Optional(
    Type.String({ maxLength: 100, description: 'A cursor from an earlier answer; absent: every note.' }),
  ),
  // The query string is not coerced (app.ts): a number is its digits.
  limit: Type.Optional(
    answered(
      Type.String({
        pattern: '^[1-9][0-9]{0,3}$',
        description: `1 to ${CHANGES_LIMIT.max}; ${CHANGES_LIMIT.default} when absent.`,
      }),
      {
        invalid: LIMIT_OUT_OF_RANGE,
      },
    ),
  ),
})

const ChangesOk = Type.Object(
  {
    error: Type.Literal(false),
    changes: Type.Array(Type.Object({ noteId: Type.String(), note: Type.Union([Note, Type.Null()]) })),
    cursor: Type.String(),
    more: Type.Boolean(),
    message: Type.String(),
  },
  {
    description:
      "The account's changes after the cursor, oldest first, each note's latest once: null when it left the listing. more: read again at once.",
  },
)

const CursorExpired = errorBody(
  'The cursor cannot be served: too old (the feed no longer remembers every change after it), from another account or database, or no cursor. List again without since.',
  [CURSOR_EXPIRED],
)

export const getChanges = {
  ...operationsOf('notes', true)(
    'getChanges',
    "The account's note changes after a cursor",
    'Without since: every note, paged by limit, and the cursor to continue from. Each note appears once, as it is now, or ' +
      'as null when it left the listing (trashed or erased). 410 when the cursor cannot be served: list again.',
  ),
  querystring: ChangesQuery,
  response: { 200: ChangesOk, 400: BadRequest, ...authErrors, 410: CursorExpired },
}
