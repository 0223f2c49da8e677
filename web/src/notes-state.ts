// The signed-in person's notes as the app holds them: the whole list (GET /get-all-notes), the
// current search's results (GET /search-notes, debounced, the older request cancelled), and every
// change made here applied to both at once, in the API's order: pinned first, then newest
// createdOn, ties by _id descending (docs/contract.md, "List order").
import { useCallback, useEffect, useRef, useState } from 'react'
import { ApiError, type Note, type NoteFields, SessionEndedError, answerOf, api, messageOf } from './api'
import { takeEarlyListing } from './early-listing'
import { searchPattern } from './search'

export function compareNotes(a: Note, b: Note): number {
  if (a.isPinned !== b.isPinned) return a.isPinned ? -1 : 1
  if (a.createdOn !== b.createdOn) return a.createdOn < b.createdOn ? 1 : -1
  return a._id < b._id ? 1 : a._id > b._id ? -1 : 0
}

function without(list: Note[], id: string): Note[] {
  return list.filter((n) => n._id !== id)
}

function upsert(list: Note[], note: Note): Note[] {
  const next = without(list, note._id)
  next.push(note)
  return next.sort(compareNotes)
}

function replaceIfPresent(list: Note[], note: Note): Note[] {
  return list.some((n) => n._id === note._id) ? upsert(list, note) : list
}

/** A 404 from edit, pin or delete: the note is gone (deleted on another device, say). */
function isGone(err: unknown): boolean {
  return err instanceof ApiError && err.status === 404
}

export interface SearchState {
  pattern: string
  /** Undefined while the first answer for this pattern is on its way. */
  notes: Note[] | undefined
  error: string | undefined
  pending: boolean
}

export const SEARCH_DEBOUNCE_MS = 250

export interface NotesState {
  all: Note[] | undefined
  loadError: string | undefined
  search: SearchState | undefined
  reload: () => void
  create: (fields: NoteFields) => Promise<Note>
  edit: (id: string, fields: NoteFields) => Promise<Note>
  setPinned: (note: Note, isPinned: boolean) => Promise<void>
  remove: (id: string, keepalive?: boolean) => Promise<void>
}

/**
 * `onSessionEnded` runs on any 401; other failures reject the returned promises (the caller
 * shows them) or land in loadError / search.error.
 */
export function useNotes(token: string, typed: string, regex: boolean, onSessionEnded: () => void): NotesState {
  const [all, setAll] = useState<Note[]>()
  const [loadError, setLoadError] = useState<string>()
  const [search, setSearch] = useState<SearchState>()
  const [loadCount, setLoadCount] = useState(0)
  const [searchCount, setSearchCount] = useState(0)
  const sessionEnded = useRef(onSessionEnded)
  sessionEnded.current = onSessionEnded

  const failed = useCallback((err: unknown): string => {
    if (err instanceof SessionEndedError) sessionEnded.current()
    return messageOf(err)
  }, [])

  useEffect(() => {
    const abort = new AbortController()
    setLoadError(undefined)
    const early = takeEarlyListing(token)
    const listed = early ? answerOf<{ notes: Note[] }>(early, abort.signal) : api.allNotes(token, abort.signal)
    listed.then(
      ({ notes }) => {
        if (!abort.signal.aborted) setAll(notes)
      },
      (err: unknown) => {
        if (!abort.signal.aborted) setLoadError(failed(err))
      },
    )
    return () => abort.abort()
  }, [token, loadCount, failed])

  const pattern = searchPattern(typed, regex)
  useEffect(() => {
    if (pattern === undefined) {
      setSearch(undefined)
      return
    }
    // The previous results stay on screen until this pattern's answer replaces them.
    setSearch((s) => ({ pattern, notes: s?.notes, error: undefined, pending: true }))
    const abort = new AbortController()
    const timer = setTimeout(() => {
      api.search(token, pattern, abort.signal).then(
        ({ notes }) => setSearch({ pattern, notes, error: undefined, pending: false }),
        (err: unknown) => {
          if (!abort.signal.aborted) setSearch({ pattern, notes: undefined, error: failed(err), pending: false })
        },
      )
    }, SEARCH_DEBOUNCE_MS)
    return () => {
      clearTimeout(timer)
      abort.abort()
    }
  }, [token, pattern, searchCount, failed])

  const apply = useCallback((change: (list: Note[]) => Note[]) => {
    setAll((list) => (list ? change(list) : list))
    setSearch((s) => (s?.notes ? { ...s, notes: change(s.notes) } : s))
  }, [])

  const call = useCallback(
    async <T>(request: Promise<T>): Promise<T> => {
      try {
        return await request
      } catch (err) {
        throw new ApiError(failed(err), err instanceof ApiError ? err.status : 0)
      }
    },
    [failed],
  )

  return {
    all,
    loadError,
    search,
    reload: () => setLoadCount((n) => n + 1),
    async create(fields) {
      const { note } = await call(api.addNote(token, fields))
      setAll((list) => (list ? upsert(list, note) : list))
      // Whether it matches the search is the API's to say.
      if (pattern !== undefined) setSearchCount((n) => n + 1)
      return note
    },
    async edit(id, fields) {
      const { note } = await call(api.editNote(token, id, fields)).catch((err: unknown) => {
        if (isGone(err)) apply((list) => without(list, id))
        throw err
      })
      apply((list) => replaceIfPresent(list, note))
      if (pattern !== undefined) setSearchCount((n) => n + 1)
      return note
    },
    async setPinned(note, isPinned) {
      // Shown at once; put back if the API refuses.
      apply((list) => replaceIfPresent(list, { ...note, isPinned }))
      try {
        const { note: saved } = await call(api.setPinned(token, note._id, isPinned))
        apply((list) => replaceIfPresent(list, saved))
      } catch (err) {
        apply((list) => (isGone(err) ? without(list, note._id) : replaceIfPresent(list, note)))
        throw err
      }
    },
    async remove(id, keepalive = false) {
      // Already gone is what a delete asks for: not a failure to show.
      await call(api.deleteNote(token, id, keepalive)).catch((err: unknown) => {
        if (!isGone(err)) throw err
      })
      apply((list) => without(list, id))
    },
  }
}
