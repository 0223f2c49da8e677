// Errors the services raise with the contract's status and message. The app's error handler
// turns them into `{error: true, message}`, or `{message}` for the two add-note messages the
// specification sends without an `error` key (notes-service-interface.md §4, POST /add-note).

export class ContractError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    /** false for the add-note "is required" answers, which carry no `error` key. */
    readonly withErrorKey = true,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
    this.name = 'ContractError'
  }
}

export const NOTE_NOT_FOUND = 'Note not found'

export const badRequest = (message: string) => new ContractError(400, message)
export const noteNotFound = () => new ContractError(404, NOTE_NOT_FOUND)
