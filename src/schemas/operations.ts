// What the OpenAPI document says about each route besides its schemas (@fastify/swagger reads
// these keys from the route schema; Fastify ignores them).

/** The name of the bearer security scheme declared in plugins/openapi.ts. */
export const BEARER = 'bearerAuth'

/** An operation of `tag`, which with `bearer` requires the token. */
export const operation = (tag: string, bearer: boolean, operationId: string, summary: string, description?: string) => ({
  tags: [tag],
  ...(bearer ? { security: [{ [BEARER]: [] }] } : {}),
  operationId,
  summary,
  ...(description === undefined ? {} : { description }),
})

export const operations = {
  createAccount: operation(
    'accounts',
    false,
    'createAccount',
    'Register an account',
    'Creates the account and answers with an access token. An email that already exists answers 200 ' +
      'with {error: true, message: "User already exists"}.',
  ),
  login: operation(
    'accounts',
    false,
    'login',
    'Log in',
    'Answers a new access token. A wrong password and an unknown email both answer 400 "Invalid Credentials".',
  ),
  getUser: operation('accounts', true, 'getUser', 'The user of the token'),
  addNote: operation('notes', true, 'addNote', 'Add a note'),
  editNote: operation(
    'notes',
    true,
    'editNote',
    'Edit a note',
    'Only truthy values are applied: isPinned false does not unpin (use /update-note-pinned).',
  ),
  deleteNote: operation('notes', true, 'deleteNote', 'Delete a note'),
  pinNote: operation('notes', true, 'updateNotePinned', 'Pin or unpin a note', 'Stores isPinned whenever the key is present, false included.'),
  getAllNotes: operation('notes', true, 'getAllNotes', "The user's notes", 'Pinned first, then newest createdOn first, then _id descending.'),
  searchNotes: operation(
    'notes',
    true,
    'searchNotes',
    "Search the user's notes",
    'query is a case-insensitive regular expression (RE2 syntax: no back-references or look-around) ' +
      'matched against title and content. A search that matches for longer than SEARCH_TIMEOUT_MS (2 s by ' +
      'default) is refused with 400; when every search thread is busy and the queue is full, 503 with Retry-After.',
  ),
}
