// Response schemas of every error status of the contract routes. Fastify serialises error bodies through them, so
// they keep the handler's bytes: properties in its order ({error, message}), and no `const` on `message`, which
// fast-json-stringify would write instead of the value. `enum` and `pattern` only document the words (the harness checks).
import { type TSchema, Type } from '@sinclair/typebox'
import { CURSOR_EXPIRED, DATABASE_UNREACHABLE, LOW_DISK_SPACE, NOTE_CHANGED, NOTE_NOT_FOUND, QUOTA_MESSAGE_PATTERN, REGISTRATION_CLOSED, REVISION_NOT_FOUND } from '../errors.js'
import { Note } from '../note-shape.js'
import { LOGIN_THROTTLED, REGISTRATIONS_THROTTLED, REGISTRATION_THROTTLED } from '../services/brute-force.js'
import { SEARCH_BUSY } from '../services/search-pool.js'

const message = (options: { enum?: string[]; pattern?: string; description?: string } = {}) =>
  Type.Unsafe<string>({ type: 'string', ...options })

/** `{error: true, message}`, the contract's usual error body. */
export const errorBody = (description: string, messages?: string[] | { pattern: string }, headers?: object) =>
  Type.Object(
    { error: Type.Literal(true), message: message(Array.isArray(messages) ? { enum: messages } : (messages ?? {})) },
    { description, additionalProperties: false, ...(headers && { headers }) },
  )

const BAD_REQUEST =
  'A required field is missing or falsy ("… is required"), a field has the wrong JSON type, is too long, ' +
  'holds an unpaired surrogate ("… must be valid Unicode text") or, for fullName, a control character ' +
  '("fullName must not contain control characters"), or the body is not valid UTF-8, not valid JSON or not an object.'

const BadRequest = errorBody(BAD_REQUEST)

const AddNoteBadRequest = Type.Union(
  [
    Type.Object({ error: Type.Literal(true), message: message() }, { additionalProperties: false }),
    Type.Object(
      { message: message({ enum: ['Title is required', 'content is required'] }) },
      { additionalProperties: false, description: 'A missing title or content: no `error` key.' },
    ),
  ],
  { description: `${BAD_REQUEST} A missing title or content is answered as {message} without the error key.` },
)

/** The bare 401: the plain text `Unauthorized`, never JSON (docs/contract.md, "The 401"). */
export const Unauthorized = {
  description: 'The Authorization header is missing, has no second part, or its token fails verification.',
  content: { 'text/plain': { schema: Type.Unsafe<string>({ type: 'string', enum: ['Unauthorized'] }) } },
}

const NoteNotFound = errorBody('No note with this id belongs to the user (a malformed id included).', [NOTE_NOT_FOUND])
const TrashedNoteNotFound = errorBody('The trash holds no note with this id of the user.', [NOTE_NOT_FOUND])
const HistoryNotFound = errorBody('The user has no such note, live or in the trash, or the note no such revision.', [NOTE_NOT_FOUND, REVISION_NOT_FOUND])
const NoteChanged = Type.Object(
  { error: Type.Literal(true), message: message({ enum: [NOTE_CHANGED] }), note: Note },
  { description: 'If-Match names none of the versions the note has now: nothing changed; `note` is the note as it is.', additionalProperties: false },
)
const PayloadTooLarge = errorBody('The body is larger than BODY_LIMIT.', ['Request body is too large'])
const UnsupportedMediaType = errorBody('The body is not sent as application/json.', ['Content-Type must be application/json'])

const RegistrationClosed = errorBody('Registration is closed (REGISTRATION=closed).', [REGISTRATION_CLOSED])
const NoteQuotaReached = errorBody(
  'The account keeps MAX_NOTES_PER_ACCOUNT notes already, or the note would take it past MAX_NOTE_MB_PER_ACCOUNT ' +
    '(UTF-8 bytes of title, content and tags). Deleting notes makes room.',
  { pattern: QUOTA_MESSAGE_PATTERN },
)
const InsufficientStorage = errorBody(
  "The server's disk has less than MIN_FREE_DISK_MB free (SQLite store only); reads and deletes still work.",
  [LOW_DISK_SPACE],
)

const TooManyRequests = errorBody(
  'Too many failed logins, duplicate registrations or accounts registered from this address; retry after Retry-After seconds.',
  [LOGIN_THROTTLED, REGISTRATION_THROTTLED, REGISTRATIONS_THROTTLED],
  { 'retry-after': { type: 'string', description: 'Seconds until the next attempt is allowed.' } },
)

const internalError = (text: string) => errorBody('An unexpected failure inside the service.', [text])
const InternalError = internalError('Internal Server Error')
/** edit, delete and pin answer 500 with a trailing space (docs/contract.md, "Quirks kept"). */
const InternalErrorTrailingSpace = internalError('Internal Server Error ')

const ServiceUnavailable = errorBody('The database cannot be reached.', [DATABASE_UNREACHABLE])

const SearchBadRequest = errorBody(
  'The query is missing, over 500 characters, not a regular expression RE2 accepts (back-references and ' +
    'look-around included), too complex ("query is too complex: ...": its estimated matching cost per character, ' +
    'which large counted repetitions multiply, is over the bound; docs/search.md), or it took longer than ' +
    'SEARCH_TIMEOUT_MS to match: "Search took longer than N ms: use a simpler pattern".',
)
const SearchUnavailable = errorBody(
  'The database cannot be reached, or every search thread is busy and the queue is full (or the search waited ' +
    'SEARCH_TIMEOUT_MS for a thread): the latter is sent with Retry-After, in seconds.',
  [DATABASE_UNREACHABLE, SEARCH_BUSY],
)

const CursorExpired = errorBody(
  'The cursor cannot be served: too old (the feed no longer remembers every change after it), from another account or database, or no cursor. List again without since.',
  [CURSOR_EXPIRED],
)

export const bodyErrors = { 400: BadRequest, 413: PayloadTooLarge, 415: UnsupportedMediaType }
const serverErrors = { 500: InternalError, 503: ServiceUnavailable }
export const authErrors = { 401: Unauthorized, ...serverErrors }
const noteById = { ...bodyErrors, ...authErrors, 404: NoteNotFound, 500: InternalErrorTrailingSpace }

/** The error statuses each contract route can answer, keyed like the route handlers. */
export const errorResponses = {
  createAccount: { ...bodyErrors, 403: RegistrationClosed, 429: TooManyRequests, ...serverErrors, 507: InsufficientStorage },
  login: { ...bodyErrors, 429: TooManyRequests, ...serverErrors },
  getUser: authErrors,
  addNote: { ...bodyErrors, 400: AddNoteBadRequest, ...authErrors, 403: NoteQuotaReached, 507: InsufficientStorage },
  editNote: { ...noteById, 403: NoteQuotaReached, 412: NoteChanged, 507: InsufficientStorage },
  deleteNote: { ...noteById, 412: NoteChanged },
  pinNote: { ...noteById, 412: NoteChanged, 507: InsufficientStorage },
  getTrash: authErrors,
  restoreNote: { ...authErrors, 403: NoteQuotaReached, 404: TrashedNoteNotFound, 507: InsufficientStorage },
  deleteNoteForever: { ...authErrors, 404: TrashedNoteNotFound },
  emptyTrash: authErrors,
  noteHistory: { ...authErrors, 404: HistoryNotFound },
  restoreRevision: { ...noteById, 403: NoteQuotaReached, 404: HistoryNotFound, 412: NoteChanged, 507: InsufficientStorage },
  getAllNotes: authErrors,
  getChanges: { 400: BadRequest, ...authErrors, 410: CursorExpired },
  searchNotes: { 400: SearchBadRequest, ...authErrors, 503: SearchUnavailable },
} satisfies Record<string, Record<number, TSchema | typeof Unauthorized>>
