// What the app keeps in the browser. The access token lives in localStorage so a person stays
// signed in across reloads and tabs (docs/web-app.md, "The token"): a script running in this
// origin could read it, which is why the page allows no script but its own (CSP, Trusted Types)
// and renders notes through DOMPurify. An HttpOnly cookie would hide it from scripts, but the
// contract's API takes the token in the Authorization header only, and the app uses that API as
// every other client does.
import type { NoteFields } from './api'

const TOKEN = 'notes-service.token'
const VIEW = 'notes-service.view'
const DRAFT = 'notes-service.draft'

function read(storage: () => Storage, key: string): string | null {
  try {
    return storage().getItem(key)
  } catch {
    return null // storage disabled: the app still works for this page's lifetime
  }
}

function write(storage: () => Storage, key: string, value: string | null): void {
  try {
    if (value === null) storage().removeItem(key)
    else storage().setItem(key, value)
  } catch {
    // storage disabled or full: nothing is kept
  }
}

const local = () => window.localStorage
const session = () => window.sessionStorage

export const TOKEN_KEY = TOKEN
export const loadToken = () => read(local, TOKEN)
export const saveToken = (token: string | null) => write(local, TOKEN, token)

export type View = 'cards' | 'list'
export const loadView = (): View => (read(local, VIEW) === 'list' ? 'list' : 'cards')
export const saveView = (view: View) => write(local, VIEW, view)

/** What the editor held when the session ended, for the same account after it signs in again. */
export interface Draft extends NoteFields {
  userId: string
  /** The note being edited; absent for a new note. */
  noteId?: string
  /** The note's version the editing started from (its updatedOn). */
  version?: string
}

export function keepDraft(draft: Draft): void {
  write(session, DRAFT, JSON.stringify(draft))
}

/** The kept draft of this account, once (it is removed as it is read). */
export function takeDraft(userId: string): Draft | undefined {
  const raw = read(session, DRAFT)
  if (!raw) return undefined
  write(session, DRAFT, null)
  try {
    const draft = JSON.parse(raw) as Draft
    return draft.userId === userId ? draft : undefined
  } catch {
    return undefined
  }
}

/** How many changes made offline wait to be sent (the replica's engine keeps it up to date). */
export const loadUnsent = (): number => Number(read(local, 'notes-service.unsent')) || 0
