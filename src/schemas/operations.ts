// What /openapi.json says of each route besides its schemas: @fastify/swagger reads these keys, Fastify ignores them.

/** The name of the bearer security scheme declared in plugins/openapi.ts. */
export const BEARER = 'bearerAuth'

/** The operations of `tag`, which with `bearer` require the token. */
export const operationsOf = (tag: string, bearer: boolean) => (operationId: string, summary: string, description?: string) => ({
  tags: [tag],
  ...(bearer ? { security: [{ [BEARER]: [] }] } : {}),
  operationId,
  summary,
  ...(description === undefined ? {} : { description }),
})

const open = operationsOf('accounts', false)
const account = operationsOf('accounts', true)
const note = operationsOf('notes', true)
export const operatorOperation = operationsOf('operations', false)

export const operations = {
  createAccount: open(
    'createAccount',
    'Register an account',
    'Creates the account and answers with an access token. An email that already exists answers 200 ' +
      'with {error: true, message: "User already exists"}.',
  ),
  login: open(
    'login',
    'Log in',
    'Answers a new access token. A wrong password and an unknown email both answer 400 "Invalid Credentials".',
  ),
  getUser: account('getUser', 'The user of the token'),
  addNote: note('addNote', 'Add a note'),
  editNote: note(
    'editNote',
    'Edit a note',
    'Only truthy values are applied: isPinned false does not unpin (use /update-note-pinned). Honours If-Match with the ETag of the note.',
  ),
  deleteNote: note('deleteNote', 'Delete a note', 'Moves it to the trash (erased at once when TRASH_DAYS is 0). Honours If-Match.'),
  getTrash: note('getTrash', "The user's trash", 'Most recently deleted first. Notes are erased for good TRASH_DAYS after deletion.'),
  restoreNote: note('restoreNote', 'Restore a note from the trash', 'Held to the quota as add-note is; the note gets a new updatedOn.'),
  deleteNoteForever: note('deleteNoteForever', 'Erase a trashed note for good', 'Its history goes with it.'),
  emptyTrash: note('emptyTrash', 'Erase every trashed note for good'),
  noteHistory: note('getNoteHistory', "A note's revision history", 'Newest first; a note in the trash keeps its history.'),
  restoreRevision: note(
    'restoreRevision',
    'Restore a revision',
    "Sets the note's title, content and tags to the revision's as a new edit (pinning stays), answered as edit-note. Honours If-Match.",
  ),
  pinNote: note('updateNotePinned', 'Pin or unpin a note', 'Stores isPinned whenever the key is present, false included.'),
  getChanges: note(
    'getChanges',
    "The account's note changes after a cursor",
    'Without since: every note, paged by limit, and the cursor to continue from. Each note appears once, as it is now, or ' +
      'as null when it left the listing (trashed or erased). 410 when the cursor cannot be served: list again.',
  ),
  getAllNotes: note('getAllNotes', "The user's notes", 'Pinned first, then newest createdOn first, then _id descending.'),
  searchNotes: note(
    'searchNotes',
    "Search the user's notes",
    'query is a case-insensitive regular expression (RE2 syntax: no back-references or look-around) ' +
      'matched against title and content. A search that matches for longer than SEARCH_TIMEOUT_MS (2 s by ' +
      'default) is refused with 400; when every search thread is busy and the queue is full, 503 with Retry-After.',
  ),
}
