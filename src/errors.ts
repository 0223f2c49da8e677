// Errors the services raise with the contract's status and message; app.ts's error handler sends them.

export class ContractError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    /** false for the add-note "is required" answers, which carry no `error` key. */
    readonly withErrorKey = true,
    readonly headers: Record<string, string> = {},
    /** More of the answer's body, after `error` and `message`. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message)
    this.name = 'ContractError'
  }
}

export const NOTE_NOT_FOUND = 'Note not found'
export const REGISTRATION_CLOSED = 'Registration is closed: this server does not accept new accounts'
export const DATABASE_UNREACHABLE = 'Service Unavailable: the database cannot be reached'
export const LOW_DISK_SPACE = 'Not enough free disk space: the server accepts no new data until space is freed'

/** The quota answers of add-note and edit-note, with the configured limits. */
export const noteLimitMessage = (notes: number) => `Note limit reached: an account keeps at most ${notes} notes`
export const storageLimitMessage = (megabytes: number) =>
  `Storage limit reached: an account keeps at most ${megabytes} MB of notes (title, content and tags)`
export const QUOTA_MESSAGE_PATTERN =
  '^(Note limit reached: an account keeps at most \\d+ notes|Storage limit reached: an account keeps at most \\d+ MB of notes \\(title, content and tags\\))$'

export const NOTE_CHANGED = 'Note was changed elsewhere'
export const REVISION_NOT_FOUND = 'Revision not found'
export const CURSOR_EXPIRED = 'Cursor expired: list all notes again'

export const badRequest = (message: string) => new ContractError(400, message)
/** An If-Match that no longer holds (412, RFC 9110 §13.1.1): the answer carries the note as it is now. */
export const noteChanged = (note: unknown) => new ContractError(412, NOTE_CHANGED, true, {}, { note })
export const noteNotFound = () => new ContractError(404, NOTE_NOT_FOUND)
/** A change-feed cursor this account's feed cannot serve (docs/sync.md): the client lists every note again. */
export const cursorExpired = () => new ContractError(410, CURSOR_EXPIRED)

export const ATTACHMENT_NOT_FOUND = 'Attachment not found'
export const attachmentNotFound = () => new ContractError(404, ATTACHMENT_NOT_FOUND)
/** The answers of POST /upload-attachment past its limits (docs/attachments.md, "Limits"). */
export const attachmentTooLargeMessage = (megabytes: number) =>
  `File is too large: one upload carries at most ${megabytes} MB`
export const attachmentQuotaMessage = (megabytes: number) =>
  `Attachment limit reached: an account keeps at most ${megabytes} MB of files`
/** The answers of GET /attachments/:id/thumbnail that make no thumbnail (docs/attachments.md, "Thumbnails"). */
export const THUMBNAIL_WIDTH_REFUSED = 'width must be 64, 256 or 1024'
export const NOT_A_PICTURE = 'Only pictures have thumbnails'
export const PICTURE_TOO_LARGE = 'The picture is too large to make a thumbnail of'
export const PICTURE_UNREADABLE = 'The picture cannot be read to make a thumbnail of'
