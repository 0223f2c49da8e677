// What each Store method publishes on the change bus once it has committed, complete by type: a new Store method
// without an entry fails type-checking, so no write the service makes can skip telling the streams (publishing.ts).
import type { NoteWrite, Store } from '../../store/types.js'

/** The accounts a call changed, from its arguments and its result; undefined or [] publishes nothing. */
type Accounts<A extends unknown[], R> = (args: A, result: R) => string | readonly string[] | undefined

/** 'none': the call changes no note a listing shows and ends no session. */
export type Publication<A extends unknown[], R> = 'none' | { notes?: Accounts<A, R>; sessions?: Accounts<A, R> }

export type Publications = { readonly [K in keyof Store]: Publication<Parameters<Store[K]>, Awaited<ReturnType<Store[K]>>> }

const wrote = (write: NoteWrite) => write !== undefined && 'note' in write

export const PUBLICATIONS = {
  // A new account has no stream yet.
  createUser: 'none',
  findUserByEmailKey: 'none',
  findUserById: 'none',
  // A revocation (logout without a session, sign-out everywhere, a password change) ends sessions; a rename ends none.
  updateUser: { sessions: ([userId, , revocation], user) => (revocation && user ? userId : undefined) },
  deleteUser: { sessions: ([userId], deleted) => (deleted ? userId : undefined) },
  // A login pushes out the account's expired sessions and those past the most it keeps.
  createSession: { sessions: ([session], created) => (created ? session.userId : undefined) },
  findSession: 'none',
  touchSession: 'none',
  listSessions: 'none',
  deleteSession: { sessions: ([userId], deleted) => (deleted ? userId : undefined) },
  insertNote: { notes: ([note], inserted) => (inserted ? note.userId : undefined) },
  findNote: 'none',
  // A conflict (If-Match) or an absent note changed nothing.
  updateNote: { notes: ([userId], write) => (wrote(write) ? userId : undefined) },
  deleteNote: { notes: ([userId], write) => (wrote(write) ? userId : undefined) },
  listTrash: 'none',
  restoreNote: { notes: ([userId], note) => (note ? userId : undefined) },
  // Trashed notes have already left the listing; erasing them changes nothing a stream sends.
  eraseTrash: 'none',
  noteHistory: 'none',
  // The sweep forgets notes gone long ago: a stream whose cursor it passes is told 410 at its next read.
  sweep: 'none',
  changesSince: 'none',
  listNotesJson: 'none',
  searchNotesJson: 'none',
  buildSearchIndex: 'none',
  importUsers: 'none',
  importNotes: { notes: ([notes], outcomes) => [...new Set(notes.filter((_n, i) => outcomes[i] === 'inserted').map((n) => n.userId))] },
  usersAfter: 'none',
  notesAfter: 'none',
  // Trashed notes and revisions are not in the listing.
  importTrash: 'none',
  importRevisions: 'none',
  trashAfter: 'none',
  revisionsAfter: 'none',
  noteUsage: 'none',
  accountsOverQuota: 'none',
  ping: 'none',
  close: 'none',
} as const satisfies Publications
