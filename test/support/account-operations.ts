/** The account-management operations beside the contract's (docs/accounts.md), as OpenAPI method and path. */
export const ACCOUNT_OPERATIONS: ReadonlyArray<readonly [string, string]> = [
  ['post', '/logout'],
  ['get', '/get-sessions'],
  ['delete', '/delete-session/{sessionId}'],
  ['post', '/logout-everywhere'],
  ['put', '/change-password'],
  ['put', '/edit-user'],
  ['delete', '/delete-account'],
]
