// The note endpoints (docs/contract.md, "Endpoints"): add, edit, delete, pin, list and search. Bodies, queries, answers,
// errors and OpenAPI operations; the trash and history endpoints reuse the single-note answers.
import { Type } from '@sinclair/typebox'
import { NOTE_CHANGED, NOTE_NOT_FOUND, QUOTA_MESSAGE_PATTERN, DATABASE_UNREACHABLE } from '../errors.js'
import { LIMITS, Note, noteInput, text } from '../note-shape.js'
import { SEARCH_BUSY } from '../services/search-pool.js'
import {
  BAD_REQUEST,
  InsufficientStorage,
  InternalErrorTrailingSpace,
  authErrors,
  bodyErrors,
  errorBody,
  message,
} from './error-responses.js'
import { answered, noteIdParams } from './fields.js'
import { operationsOf } from './operations.js'

// A note is added unpinned; title and content are required, every other field is optional.
const { title, content, isPinned, ...optional } = noteInput
const AddNoteBody = Type.Composite([
  Type.Object({
    title: answered(title, { required: 'Title is required', bare: true }),
    content: answered(content, { required: 'content is required', bare: true }),
  }),
  Type.Partial(Type.Object(optional)),
])
const EditNoteBody = Type.Partial(Type.Object(noteInput))
const PinBody = Type.Object({ isPinned: Type.Optional(isPinned) })
const SearchQuery = Type.Object(
  { query: answered(text(LIMITS.query), { required: 'Search query is required' }) },
  { required: ['query'] },
)

const ok = Type.Literal(false)
export const NoteOk = Type.Object(
  { error: ok, note: Note, message: Type.String() },
  { description: 'The note, as stored after the change.' },
)
const NotesOk = Type.Object(
  { error: ok, notes: Type.Array(Note), message: Type.String() },
  { description: 'The notes: pinned first, then newest createdOn, then _id descending.' },
)

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
const NoteNotFound = errorBody('No note with this id belongs to the user (a malformed id included).', [NOTE_NOT_FOUND])
export const NoteChanged = Type.Object(
  { error: Type.Literal(true), message: message({ enum: [NOTE_CHANGED] }), note: Note },
  {
    description: 'If-Match names none of the versions the note has now: nothing changed; `note` is the note as it is.',
    additionalProperties: false,
  },
)
export const NoteQuotaReached = errorBody(
  'The account keeps MAX_NOTES_PER_ACCOUNT notes already, or the note would take it past MAX_NOTE_MB_PER_ACCOUNT ' +
    '(UTF-8 bytes of title, content and tags). Deleting notes makes room.',
  { pattern: QUOTA_MESSAGE_PATTERN },
)
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

/** What a route on one note by its id can answer besides its own. */
export const noteById = { ...bodyErrors, ...authErrors, 404: NoteNotFound, 500: InternalErrorTrailingSpace }

/** The operations of the notes tag. */
export const noteOperation = operationsOf('notes', true)

export const addNote = {
  ...noteOperation('addNote', 'Add a note'),
  body: AddNoteBody,
  response: {
    200: NoteOk,
    ...bodyErrors,
    400: AddNoteBadRequest,
    ...authErrors,
    403: NoteQuotaReached,
    507: InsufficientStorage,
  },
}

export const editNote = {
  ...noteOperation(
    'editNote',
    'Edit a note',
    'Only truthy values are applied: isPinned false does not unpin (use /update-note-pinned). Honours If-Match with the ETag of the note.',
  ),
  params: noteIdParams,
  body: EditNoteBody,
  response: { 200: NoteOk, ...noteById, 403: NoteQuotaReached, 412: NoteChanged, 507: InsufficientStorage },
}

export const deleteNote = {
  ...noteOperation(
    'deleteNote',
    'Delete a note',
    'Moves it to the trash (erased at once when TRASH_DAYS is 0). Honours If-Match.',
  ),
  params: noteIdParams,
  response: { 200: NoteOk, ...noteById, 412: NoteChanged },
}

export const pinNote = {
  ...noteOperation(
    'updateNotePinned',
    'Pin or unpin a note',
    'Stores isPinned whenever the key is present, false included.',
  ),
  params: noteIdParams,
  body: PinBody,
  response: { 200: NoteOk, ...noteById, 412: NoteChanged, 507: InsufficientStorage },
}

export const getAllNotes = {
  ...noteOperation(
    'getAllNotes',
    "The user's notes",
    'Pinned first, then newest createdOn first, then _id descending.',
  ),
  response: { 200: NotesOk, ...authErrors },
}

export const searchNotes = {
  ...noteOperation(
    'searchNotes',
    "Search the user's notes",
    'query is a case-insensitive regular expression (RE2 syntax: no back-references or look-around) ' +
      'matched against title and content. A search that matches for longer than SEARCH_TIMEOUT_MS (2 s by ' +
      'default) is refused with 400; when every search thread is busy and the queue is full, 503 with Retry-After.',
  ),
  querystring: SearchQuery,
  response: { 200: NotesOk, 400: SearchBadRequest, ...authErrors, 503: SearchUnavailable },
}
