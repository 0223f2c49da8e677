// The one narrow interface every storage driver implements, and the cache layer (cache/) wraps.
// The contract's rules (validation, truthy-only edits, ownership) live in src/services and are
// written once; a driver stores and fetches records, in the list orders of list-order.ts. Every
// note query takes the owner's id, so no driver call can reach another user's note.
import type { NoteField } from './note-differences.js'
import type { NotePatch, NoteRecord } from '../note-shape.js'

export type { NotePatch, NoteRecord }

/** A user as stored. `emailKey` is the unique normalised email (emailKeyOf: trimmed, NFKC, lower-case). */
export interface UserRecord {
  _id: string
  fullName: string
  email: string
  emailKey: string
  passwordHash: string
  /** ISO 8601, UTC. */
  createdOn: string
  /**
   * ISO 8601, UTC: a token without a session (issued before sessions existed) whose `iat` is
   * earlier than this is refused (docs/accounts.md, "Tokens issued before sessions existed"). Absent until
   * logout-everywhere, change-password or an operator first moves it; it only ever moves later.
   */
  tokensNotBefore?: string
}

/**
 * One signed-in session: what each token from /login or /create-account names (claim `sid`).
 * Ending it (deleting the row) ends that token on every instance at its next request.
 */
export interface SessionRecord {
  _id: string
  userId: string
  /** ISO 8601, UTC. */
  createdOn: string
  /** When a request last used it, to within SESSION_TOUCH_INTERVAL_MS (services/sessions.ts). */
  lastUsedOn: string
  /** The client's User-Agent, trimmed to at most 200 characters; '' when it sent none. */
  client: string
}

/** A session and its account, as one lookup finds them (Store.findSession). */
export interface SessionOfAccount {
  session: SessionRecord
  user: UserRecord
  /** Set by the cache layer when this lookup read the user's versions (Store.listNotesJson). */
  checked?: CheckedVersions
}

/** The brand of CheckedVersions: declared, never exported, so no code can write one down. */
declare const madeByLookup: unique symbol

/**
 * Proof that the cache layer (cache/) read a user's versions for one session lookup, after that
 * lookup was called: the request that the lookup authenticated passes it on to its listing
 * (Store.listNotesJson), which is then checked against those versions without a read of its own.
 * Opaque: it has no readable field, its brand is not exported, and the cache layer accepts only
 * the ones it made itself (anything else is ignored, and the listing reads its own versions), so
 * only the lookup that authenticated a request can make what that request passes on. It reaches
 * the listing only through that request: the authenticate hook keeps it on the request object,
 * and no other store call answers one.
 */
export interface CheckedVersions {
  readonly [madeByLookup]: true
}

/** What may change in an account (Store.updateUser); absent fields are left alone. */
export interface AccountChange {
  fullName?: string
  passwordHash?: string
}

/**
 * Tokens to end together with an account change (Store.updateUser): the account's "not before"
 * time moves to `notBefore` (never back), and its sessions end, all of them or all but `keep`.
 */
export interface Revocation {
  notBefore: string
  /** false: no session ends (a logout with a token that names none). */
  endSessions: boolean
  /** With endSessions, the one session that stays (change-password keeps the caller's). */
  keep?: string
}

/**
 * Who makes an account write (Store.updateUser, deleteUser, deleteSession): the write commits
 * only while this token is still admitted, checked in the write's own transaction, so a request
 * that a revocation overtook changes nothing (docs/accounts.md, "Revocation is final"). With a
 * session, its row must still be there; without one (a token issued before sessions existed),
 * the account's "not before" time must not be past the token's `iat`.
 */
export interface Actor {
  sessionId: string | undefined
  /** The token's `iat`, ISO 8601 (toISOString's fixed width, so the text compares as the time). */
  issuedAt: string
}

/** Which sessions of an account a new one pushes out (Store.createSession). */
export interface SessionPruning {
  /** Sessions created before this (ISO 8601) have outlived their tokens and are deleted. */
  createdBefore: string
  /** Of the rest, only this many are kept, the new one included: the most recently used. */
  keepMost: number
}

/**
 * What one account may keep, enforced by the store atomically with the write that would pass it
 * (config.ts NoteQuotaConfig). A note's size is the UTF-8 bytes of its title, content and tags,
 * as the database measures them (octet_length): on PostgreSQL a stored U+0000 or U+FFFF counts
 * as its escape (postgres/rows.ts), 4 or 6 bytes. 0 switches a limit off.
 */
export interface NoteQuota {
  notes: number
  bytes: number
}

/** An account's notes and their size, kept by the database itself (triggers on notes). */
export interface NoteUsage {
  notes: number
  bytes: number
}

/** What search tests of a note: its title and its content, each on its own. */
export interface SearchText {
  title: string
  content: string
}

/**
 * A search pattern, as the store sees it (services/search-pool.ts): the store reads the user's
 * notes in list order, a page at a time (search-pages.ts bounds a page), and asks which of each
 * page's notes match.
 */
export interface TextMatcher {
  /**
   * The indexes, ascending, of the notes whose title or content matches. Rejects with the error
   * that answers the request (the budget spent, the pattern refused, no thread free); the store
   * lets it through and reads no further.
   */
  matchPage(notes: readonly SearchText[]): Promise<number[]>
  /**
   * Runs of lower-case ASCII characters that every matching text contains, one after the other
   * in this order, ignoring case as RE2 does (services/search-prefilter.ts), when the pattern has
   * such runs. A store may leave out of its pages the notes whose title and content each lack
   * them.
   */
  readonly runs?: readonly string[]
}

/** What importing one user did (src/transfer): kept ids make a second run change nothing. */
export type UserImportOutcome = 'inserted' | 'exists' | 'duplicate-email'
/**
 * What importing one note did; `{differs}` when a note with its _id is stored with other content
 * (the fields that differ; see note-differences.ts).
 */
export type NoteImportOutcome = 'inserted' | 'exists' | 'missing-user' | { differs: NoteField[] }

/**
 * A JSON text as a response sends it: a string as a driver read it, or its UTF-8 bytes as the
 * cache layer keeps them. A string read for one response is young garbage that V8 frees at its
 * next young-generation collection; a Buffer's memory lives outside V8's heap and waits for
 * V8's external-memory limit (64 MB above the last full collection), which grows RSS by tens of
 * megabytes under a stream of uncached listings (docs/performance.md, "Memory"). A kept listing
 * is bytes, so that sending it again encodes nothing.
 */
export type JsonText = string | Buffer

export interface Store {
  /**
   * Inserts the user, and its first session when given, in one transaction; resolves to false
   * (and stores nothing) when the email key is taken.
   */
  createUser(user: UserRecord, session?: SessionRecord): Promise<boolean>
  findUserByEmailKey(emailKey: string): Promise<UserRecord | undefined>
  findUserById(id: string): Promise<UserRecord | undefined>
  /**
   * Applies the change and the revocation in one transaction; resolves to the account as
   * stored afterwards, or undefined (and changes nothing) when no account has this id. With an
   * actor that is no longer admitted, rejects with SessionEndedError and changes nothing.
   */
  updateUser(userId: string, change: AccountChange, revocation?: Revocation, actor?: Actor): Promise<UserRecord | undefined>
  /** Deletes the account, its notes and its sessions in one transaction; false when absent. Actor: as updateUser. */
  deleteUser(userId: string, actor?: Actor): Promise<boolean>

  // Sessions (docs/accounts.md). Every session query but findSession takes the owner's id.
  /**
   * Inserts the session after deleting those of its account that `prune` pushes out, in one
   * transaction; false (and nothing changes) when its account does not exist.
   */
  createSession(session: SessionRecord, prune: SessionPruning): Promise<boolean>
  /**
   * The session with this id and its account, by primary key, in one lookup: what the
   * authenticate hook asks on every request with a token that names a session.
   */
  findSession(sessionId: string): Promise<SessionOfAccount | undefined>
  /** Sets lastUsedOn when the stored value is earlier than `staleBefore` (else nothing). */
  touchSession(sessionId: string, lastUsedOn: string, staleBefore: string): Promise<void>
  /** The account's sessions created at or after `createdSince`: newest lastUsedOn first, then createdOn, then _id descending. */
  listSessions(userId: string, createdSince: string): Promise<SessionRecord[]>
  /** Deletes the account's session; false when it has no session with this id. Actor: as updateUser. */
  deleteSession(userId: string, sessionId: string, actor?: Actor): Promise<boolean>

  /**
   * Inserts the note; resolves to false (and stores nothing) when its account does not exist:
   * an operator deleted it after the request's token and account were checked. With a quota,
   * rejects with NoteQuotaExceededError (and stores nothing) when the account already keeps
   * quota.notes notes, or the note would take it past quota.bytes.
   */
  insertNote(note: NoteRecord, quota?: NoteQuota): Promise<boolean>
  findNote(userId: string, noteId: string): Promise<NoteRecord | undefined>
  /**
   * Applies the patch and sets updatedOn; resolves to the updated note, or undefined when absent.
   * With a quota, rejects with NoteQuotaExceededError('bytes') (and changes nothing) when the
   * patch makes the note larger and the account would then keep more than quota.bytes; an edit
   * that does not grow the note always passes.
   */
  updateNote(userId: string, noteId: string, patch: NotePatch, updatedOn: string, quota?: NoteQuota): Promise<NoteRecord | undefined>
  /** Deletes and resolves to the deleted note, or undefined when absent. */
  deleteNote(userId: string, noteId: string): Promise<NoteRecord | undefined>
  /**
   * The user's notes as JSON text: pinned first, then newest createdOn first, ties by _id
   * descending (list-order.ts), each note with NoteRecord's keys in NoteRecord's order; what GET
   * /get-all-notes sends. A driver may build it without making JS objects, and answers a string
   * (JsonText); the cache layer answers the bytes it keeps. The caller must not modify the bytes
   * (the same ones are handed out again).
   * `checked`: what the lookup that authenticated this same request answered
   * (SessionOfAccount.checked): the cache layer checks a kept listing against the versions that
   * lookup read, after the request arrived, without a read of its own. A proof for another user,
   * or not made by this store's cache layer, is ignored.
   */
  listNotesJson(userId: string, checked?: CheckedVersions): Promise<JsonText>
  /** The user's notes whose title or content the matcher accepts, in listNotesJson's order, as JSON text like it: what GET /search-notes sends. */
  searchNotesJson(userId: string, matcher: TextMatcher): Promise<string>

  // Bulk transfer (notes-service import / export). Records keep their own ids, hashes and dates.
  /**
   * Inserts the users in order, each as given, in one transaction. Per user, in this order:
   * 'exists' when a user with the same _id is stored (nothing changes), 'duplicate-email' when
   * another user holds the email key (nothing changes), otherwise 'inserted'. A user earlier in
   * the same batch counts as stored.
   */
  importUsers(users: UserRecord[]): Promise<UserImportOutcome[]>
  /**
   * Inserts the notes in order, each as given, in one transaction: when a note with the same _id
   * is stored (whoever owns it), nothing changes and the outcome is 'exists' if it equals the
   * given one, `{differs}` if not; 'missing-user' when no user has the note's userId; otherwise
   * 'inserted'. A note earlier in the same batch counts as stored.
   */
  importNotes(notes: NoteRecord[]): Promise<NoteImportOutcome[]>
  /** Keyset page for export: up to `limit` users with _id > afterId (from the first when undefined), _id ascending. */
  usersAfter(afterId: string | undefined, limit: number): Promise<UserRecord[]>
  /** Keyset page for export: up to `limit` notes with _id > afterId, _id ascending; only userId's notes when given. */
  notesAfter(afterId: string | undefined, limit: number, userId?: string): Promise<NoteRecord[]>

  /** The account's usage as the database keeps it; undefined when no account has this id. */
  noteUsage(userId: string): Promise<NoteUsage | undefined>
  /** How many accounts keep more than the quota allows (an import is not held to it). */
  accountsOverQuota(quota: NoteQuota): Promise<number>

  /** Resolves when the store answers a trivial query (readiness). */
  ping(): Promise<void>
  close(): Promise<void>
}

/**
 * The versions the database keeps of one user, in the transaction of every change (triggers; each
 * driver's migrations): opaque, equal only while nothing they cover changed, never repeated.
 */
export interface UserVersions {
  /** Covers the user's notes; null: the database keeps none for this user now, and nothing may be kept. */
  notes: string | null
  /** Covers the account's row and its sessions. */
  account: string
}

/** What a driver tells the cache layer as account versions change (StoreDriver.listenForAccountChanges). */
export interface AccountChangeHandler {
  /** The account's version changed; undefined: any account's may have. */
  changed(userId: string | undefined): void
  /** Notices are proven to arrive (true), or are lost (false); told on every change. */
  live(live: boolean): void
  /** The driver is closing: nothing more will be pushed (not a loss to report). */
  closed(): void
}

/** What a driver implements: the Store, and the versions the cache layer (cache/) checks. */
export interface StoreDriver extends Store {
  /**
   * The versions of these users as one read sees them; a user without an account is absent.
   * Cheap: the cache layer asks once per turn of the event loop for the users it serves.
   */
  userVersions(userIds: readonly string[]): Promise<Map<string, UserVersions>>
  /**
   * Where one small read can tell that nothing changed (SQLite's version_clock, moved by every
   * trigger that changes a version): a value that differs from every earlier answer once any
   * user's versions changed. While it answers what it answered before a userVersions read, that
   * read is still current, so the cache layer reads the clock once per turn instead of the users'
   * versions. PostgreSQL has none: a sequence moves before its transaction commits, and one row
   * updated by every write would serialise all writers.
   */
  versionClock?(): Promise<string>
  /**
   * Where the database can push (PostgreSQL's NOTIFY, sent by the trigger that changes account
   * versions, when the change commits): starts telling `handler` of every account version change;
   * resolves once listening, or once a first attempt failed (it retries). An optimisation only:
   * while live, the cache layer uses a kept account's version without reading it (docs/caching.md).
   */
  listenForAccountChanges?(handler: AccountChangeHandler): Promise<void>
}

/** Thrown by a driver when its database cannot be reached; answered with 503. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'StoreUnavailableError'
  }
}

/**
 * The actor of an account write is no longer admitted: its session ended (or its account went)
 * after the request was authenticated. Answered with the bare 401, and nothing was changed.
 */
export class SessionEndedError extends Error {
  constructor() {
    super('the session ended before the write')
    this.name = 'SessionEndedError'
  }
}

/** The account is at its note quota (Store.insertNote, Store.updateNote); answered with 403. */
export class NoteQuotaExceededError extends Error {
  constructor(readonly limit: 'notes' | 'bytes') {
    super(`note quota reached (${limit})`)
    this.name = 'NoteQuotaExceededError'
  }
}

/**
 * Thrown by the SQLite store for a write while its data directory's file system has less free
 * space than the configured minimum; answered with 507.
 */
export class LowDiskSpaceError extends Error {
  constructor(readonly minFreeBytes: number) {
    super(`less than ${minFreeBytes} bytes free`)
    this.name = 'LowDiskSpaceError'
  }
}
