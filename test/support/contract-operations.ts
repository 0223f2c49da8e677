/** The contract's operations (docs/contract.md, "Endpoints"), as OpenAPI method and path. */
export const CONTRACT_OPERATIONS: ReadonlyArray<readonly [string, string]> = [
  ['post', '/create-account'],
  ['post', '/login'],
  ['get', '/get-user'],
  ['post', '/add-note'],
  ['put', '/edit-note/{noteId}'],
  ['delete', '/delete-note/{noteId}'],
  ['put', '/update-note-pinned/{noteId}'],
  ['get', '/get-all-notes'],
  ['get', '/search-notes'],
]
