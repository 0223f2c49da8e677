// The public API, as every client uses it (docs/contract.md, "Endpoints"): same
// paths, same bodies, the trash and history endpoints, and POST /logout of the account endpoints
// beside it (docs/accounts.md; the others are in account-api.ts, loaded with the account page).
// Errors carry the API's own message: any `{error: true, message}` or `{message}` body (the
// add-note "is required" answers have no `error` key, and create-account's "User already exists"
// comes with status 200), with the wait of a Retry-After. Every edit, pin, delete and restored
// revision names the version it was made on (`If-Match: "<updatedOn>"`), so a change made
// elsewhere in between is refused (412) rather than overwritten.

import type { Static } from '@sinclair/typebox'
import type { NoteRecord, RevisionRecord, TrashedNoteRecord } from '../../src/note-shape.js'
import type { User as UserSchema } from '../../src/schemas/fields.js'

/** The shapes the server's schemas give (a type-only import: nothing of the server is bundled). */
export type Note = NoteRecord
/** A user read from an old token may lack createdOn. */
export type User = Omit<Static<typeof UserSchema>, 'createdOn'> & { createdOn?: string }

/** What the editor sends to add-note and edit-note. */
export type NoteFields = Pick<Note, 'title' | 'content' | 'tags'>

/** A note in the trash: the note as it was deleted, and when. */
export type TrashedNote = TrashedNoteRecord

/** A state a note had before a change of its title, content or tags; editedOn is when it was saved. */
export type Revision = RevisionRecord

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

/** A 412: the note changed since the version the request named; `note` is how it is now. */
export class ConflictError extends ApiError {
  constructor(
    message: string,
    readonly note: Note,
  ) {
    super(message, 412)
    this.name = 'ConflictError'
  }
}

/** What the app shows for a failed request: the API's own message, or the error as text. */
export function messageOf(err: unknown): string {
  return err instanceof ApiError ? err.message : String(err)
}

/** A 401: the token is missing, expired, or its account is gone (a bare "Unauthorized" body). */
export class SessionEndedError extends ApiError {
  constructor() {
    super('Your session has ended. Please sign in again.', 401)
    this.name = 'SessionEndedError'
  }
}

export const UNREACHABLE = 'The server cannot be reached. Check your connection and try again.'

/** "90" → "1 min 30 s": the wait of a Retry-After header in seconds (RFC 9110 §10.2.3). */
export function describeWait(retryAfter: string | null): string | undefined {
  if (!retryAfter || !/^\d+$/.test(retryAfter.trim())) return undefined
  const seconds = Number(retryAfter)
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.floor(seconds / 60)
  const rest = seconds % 60
  return rest ? `${minutes} min ${rest} s` : `${minutes} min`
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The message of a failed answer: the API's own, else the status line. */
export function failureMessage(status: number, statusText: string, body: unknown, retryAfter: string | null): string {
  const message =
    isRecord(body) && typeof body.message === 'string' && body.message
      ? body.message
      : `The server answered ${status} ${statusText}`.trim()
  const wait = describeWait(retryAfter)
  return wait ? `${message} (wait ${wait})` : message
}

interface CallOptions {
  token?: string | undefined
  body?: unknown
  signal?: AbortSignal | undefined
  /** Sent even while the page unloads (a logout as the tab closes). */
  keepalive?: boolean
  /** The note's version the change is made on (its updatedOn), sent as If-Match. */
  version?: string | undefined
}

export function call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
  return answerOf<T>(send(method, path, options), options.signal)
}

/** The request of call(), sent: its response, not yet read. */
export function send(method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (options.token) headers.authorization = `Bearer ${options.token}`
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  if (options.version) headers['if-match'] = `"${options.version}"`
  return fetch(path, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.keepalive ? { keepalive: true } : {}),
  })
}

/** What call() answers for a request sent with send(): its body, or the failure it reports. */
export async function answerOf<T>(sent: Promise<Response>, signal?: AbortSignal): Promise<T> {
  let response: Response
  try {
    response = await sent
  } catch (err) {
    if (signal?.aborted) throw err
    throw new ApiError(UNREACHABLE, 0)
  }
  if (response.status === 401) throw new SessionEndedError()
  const text = await response.text()
  let body: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = undefined
  }
  if (response.status === 412 && isRecord(body) && isRecord(body.note)) {
    throw new ConflictError(failureMessage(412, response.statusText, body, null), body.note as Note)
  }
  if (!response.ok || (isRecord(body) && body.error === true)) {
    throw new ApiError(
      failureMessage(response.status, response.statusText, body, response.headers.get('retry-after')),
      response.status,
    )
  }
  return body as T
}

const at = (path: string, ...ids: string[]) => [path, ...ids.map(encodeURIComponent)].join('/')

export const api = {
  createAccount: (fullName: string, email: string, password: string) =>
    call<{ user: User; accessToken: string }>('POST', '/create-account', { body: { fullName, email, password } }),
  login: (email: string, password: string) =>
    call<{ email: string; accessToken: string }>('POST', '/login', { body: { email, password } }),
  getUser: (token: string) => call<{ user: User }>('GET', '/get-user', { token }),
  allNotes: (token: string, signal?: AbortSignal) =>
    call<{ notes: Note[] }>('GET', '/get-all-notes', { token, signal }),
  search: (token: string, query: string, signal?: AbortSignal) =>
    call<{ notes: Note[] }>('GET', `/search-notes?query=${encodeURIComponent(query)}`, { token, signal }),
  addNote: (token: string, fields: NoteFields) => call<{ note: Note }>('POST', '/add-note', { token, body: fields }),
  editNote: (token: string, id: string, fields: NoteFields, version: string) =>
    call<{ note: Note }>('PUT', at('/edit-note', id), { token, body: fields, version }),
  setPinned: (token: string, id: string, isPinned: boolean, version: string) =>
    call<{ note: Note }>('PUT', at('/update-note-pinned', id), { token, body: { isPinned }, version }),
  /** Moves the note to the trash. */
  deleteNote: (token: string, id: string, version: string) =>
    call<{ note: Note }>('DELETE', at('/delete-note', id), { token, version }),
  getTrash: (token: string, signal?: AbortSignal) =>
    call<{ notes: TrashedNote[] }>('GET', '/get-trash', { token, signal }),
  restoreNote: (token: string, id: string) => call<{ note: Note }>('PUT', at('/restore-note', id), { token }),
  deleteForever: (token: string, id: string) =>
    call<{ message: string }>('DELETE', at('/delete-note-forever', id), { token }),
  emptyTrash: (token: string) => call<{ deleted: number }>('DELETE', '/empty-trash', { token }),
  noteHistory: (token: string, id: string, signal?: AbortSignal) =>
    call<{ revisions: Revision[] }>('GET', at('/get-note-history', id), { token, signal }),
  restoreRevision: (token: string, id: string, revisionId: string, version: string) =>
    call<{ note: Note }>('PUT', at('/restore-revision', id, revisionId), { token, version }),
  /** Ends this token's session; sent with keepalive, so signing out and closing the tab still ends it. */
  logout: (token: string) => call<{ message: string }>('POST', '/logout', { token, keepalive: true }),
}
