// What the OpenAPI document says about each contract route besides its schemas: a summary, a
// tag, and whether the bearer token is required. Fastify ignores these keys; @fastify/swagger
// reads them from the route schema.

/** The name of the bearer security scheme declared in plugins/openapi.ts. */
export const BEARER = 'bearerAuth'
const bearer = [{ [BEARER]: [] }]

const accounts = { tags: ['accounts'] }
const notes = { tags: ['notes'], security: bearer }

export const operations = {
  createAccount: {
    ...accounts,
    operationId: 'createAccount',
    summary: 'Register an account',
    description:
      'Creates the account and answers with an access token. An email that already exists answers 200 ' +
      'with {error: true, message: "User already exists"}.',
  },
  login: {
    ...accounts,
    operationId: 'login',
    summary: 'Log in',
    description: 'Answers a new access token. A wrong password and an unknown email both answer 400 "Invalid Credentials".',
  },
  getUser: {
    ...accounts,
    security: bearer,
    operationId: 'getUser',
    summary: 'The user of the token',
  },
  addNote: { ...notes, operationId: 'addNote', summary: 'Add a note' },
  editNote: {
    ...notes,
    operationId: 'editNote',
    summary: 'Edit a note',
    description: 'Only truthy values are applied: isPinned false does not unpin (use /update-note-pinned).',
  },
  deleteNote: { ...notes, operationId: 'deleteNote', summary: 'Delete a note' },
  pinNote: {
    ...notes,
    operationId: 'updateNotePinned',
    summary: 'Pin or unpin a note',
    description: 'Stores isPinned whenever the key is present, false included.',
  },
  getAllNotes: {
    ...notes,
    operationId: 'getAllNotes',
    summary: "The user's notes",
    description: 'Pinned first, then newest createdOn first, then _id descending.',
  },
  searchNotes: {
    ...notes,
    operationId: 'searchNotes',
    summary: "Search the user's notes",
    description:
      'query is a case-insensitive regular expression (RE2 syntax: no back-references or look-around) ' +
      'matched against title and content. A search that matches for longer than SEARCH_TIMEOUT_MS (2 s by ' +
      'default) is refused with 400; when every search thread is busy and the queue is full, 503 with Retry-After.',
  },
}
