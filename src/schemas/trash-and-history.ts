// The trash and history endpoints (docs/contract.md, "Trash, history and versions"): answers, errors and OpenAPI
// operations.
import { Type } from '@sinclair/typebox'
import { NOTE_NOT_FOUND, REVISION_NOT_FOUND } from '../errors.js'
import { Revision, TrashedNote } from '../note-shape.js'
import { InsufficientStorage, authErrors, errorBody } from './error-responses.js'
import { noteIdParams } from './fields.js'
import { NoteChanged, NoteOk, NoteQuotaReached, noteById, noteOperation } from './notes.js'

const RevisionParams = Type.Object({ noteId: Type.String(), revisionId: Type.String() })

const ok = Type.Literal(false)
const TrashOk = Type.Object(
  { error: ok, notes: Type.Array(TrashedNote), message: Type.String() },
  { description: 'The notes in the trash, each with deletedOn: most recently deleted first.' },
)
const DoneOk = Type.Object({ error: ok, message: Type.String() }, { description: 'Done.' })
const TrashEmptiedOk = Type.Object(
  { error: ok, deleted: Type.Integer(), message: Type.String() },
  { description: 'How many notes the trash held, now erased for good.' },
)
const HistoryOk = Type.Object(
  { error: ok, revisions: Type.Array(Revision), message: Type.String() },
  { description: "The note's earlier states, newest first: each as it was before a change of title, content or tags." },
)

const TrashedNoteNotFound = errorBody('The trash holds no note with this id of the user.', [NOTE_NOT_FOUND])
const HistoryNotFound = errorBody('The user has no such note, live or in the trash, or the note no such revision.', [
  NOTE_NOT_FOUND,
  REVISION_NOT_FOUND,
])

export const getTrash = {
  ...noteOperation(
    'getTrash',
    "The user's trash",
    'Most recently deleted first. Notes are erased for good TRASH_DAYS after deletion.',
  ),
  response: { 200: TrashOk, ...authErrors },
}

export const restoreNote = {
  ...noteOperation(
    'restoreNote',
    'Restore a note from the trash',
    'Held to the quota as add-note is; the note gets a new updatedOn.',
  ),
  params: noteIdParams,
  response: { 200: NoteOk, ...authErrors, 403: NoteQuotaReached, 404: TrashedNoteNotFound, 507: InsufficientStorage },
}

export const deleteNoteForever = {
  ...noteOperation('deleteNoteForever', 'Erase a trashed note for good', 'Its history goes with it.'),
  params: noteIdParams,
  response: { 200: DoneOk, ...authErrors, 404: TrashedNoteNotFound },
}

export const emptyTrash = {
  ...noteOperation('emptyTrash', 'Erase every trashed note for good'),
  response: { 200: TrashEmptiedOk, ...authErrors },
}

export const noteHistory = {
  ...noteOperation(
    'getNoteHistory',
    "A note's revision history",
    'Newest first; a note in the trash keeps its history.',
  ),
  params: noteIdParams,
  response: { 200: HistoryOk, ...authErrors, 404: HistoryNotFound },
}

export const restoreRevision = {
  ...noteOperation(
    'restoreRevision',
    'Restore a revision',
    "Sets the note's title, content and tags to the revision's as a new edit (pinning stays), answered as edit-note. Honours If-Match.",
  ),
  params: RevisionParams,
  response: {
    200: NoteOk,
    ...noteById,
    403: NoteQuotaReached,
    404: HistoryNotFound,
    412: NoteChanged,
    507: InsufficientStorage,
  },
}
