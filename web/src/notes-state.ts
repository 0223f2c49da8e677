// The signed-in person's notes as the app holds them: the whole list (GET /get-all-notes), the
// current search's results (GET /search-notes, debounced, the older request cancelled), and every
// change made here applied to both at once, in the API's order: pinned first, then newest
// createdOn, ties by _id descending (docs/contract.md, "List order"). Each change names the
// version it was made on (If-Match); a 412 puts the note as it is now in the lists and rejects
// with the ConflictError for the caller to show.
import { useCallback, useEffect, useRef, useState } from 'react'
import { ApiError, ConflictError, type Note, type NoteFields, SessionEndedError, answerOf, api, messageOf } from './api'
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
  /** Notes deleted here whose delete the API has not answered yet: shown as gone. */
  hiding: ReadonlySet<string>
  create: (fields: NoteFields) => Promise<Note>
  /** `version` is the updatedOn the edit was made on. */
  edit: (id: string, fields: NoteFields, version: string) => Promise<Note>
  setPinned: (note: Note, isPinned: boolean) => Promise<void>
  /** Moves the note to the trash. */
  remove: (note: Note) => Promise<void>
  /** Takes the note back from the trash. */
  restore: (id: string) => Promise<Note>
  /** A note changed by this page outside these calls (a revision restored): shown as it is now. */
  changed: (note: Note) => void
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
  const [hiding, setHiding] = useState<ReadonlySet<string>>(() => new Set())
  // Version v → the version this page's own pin made of it: a pin, edit or delete started on v
  // before that pin was answered is not refused for it.
  const successors = useRef(new Map<string, string>())
  const pins = useRef(new Map<string, Promise<unknown>>())
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
        const message = failed(err)
        throw err instanceof ApiError ? err : new ApiError(message, 0)
      }
    },
    [failed],
  )

  const latest = (version: string): string => {
    let v = version
    for (let next = successors.current.get(v); next; next = successors.current.get(v)) v = next
    return v
  }

  /** The request's failure, with the note as it is now in the lists on a 412 and gone on a 404. */
  const settle = useCallback(
    (id: string, err: unknown): never => {
      if (err instanceof ConflictError) apply((list) => replaceIfPresent(list, err.note))
      else if (isGone(err)) apply((list) => without(list, id))
      throw err
    },
    [apply],
  )

  const refreshSearch = () => {
    // Whether a note matches the search is the API's to say.
    if (pattern !== undefined) setSearchCount((n) => n + 1)
  }

  const hide = (id: string, hidden: boolean) =>
    setHiding((set) => {
      const next = new Set(set)
      if (hidden) next.add(id)
      else next.delete(id)
      return next
    })

  return {
    all,
    loadError,
    search,
    hiding,
    reload: () => setLoadCount((n) => n + 1),
    async create(fields) {
      const { note } = await call(api.addNote(token, fields))
      setAll((list) => (list ? upsert(list, note) : list))
      refreshSearch()
      return note
    },
    async edit(id, fields, version) {
      const { note } = await call(api.editNote(token, id, fields, latest(version))).catch((err: unknown) => settle(id, err))
      apply((list) => replaceIfPresent(list, note))
      refreshSearch()
      return note
    },
    async setPinned(note, isPinned) {
      // Shown at once; put back if the API refuses. Pins of one note go one after the other, each
      // on the version the one before made.
      apply((list) => replaceIfPresent(list, { ...note, isPinned }))
      const before = pins.current.get(note._id) ?? Promise.resolve()
      const pinned = before.then(async () => {
        const version = latest(note.updatedOn)
        try {
          const { note: saved } = await call(api.setPinned(token, note._id, isPinned, version))
          successors.current.set(version, saved.updatedOn)
          apply((list) => replaceIfPresent(list, saved))
        } catch (err) {
          if (!(err instanceof ConflictError) && !isGone(err)) apply((list) => replaceIfPresent(list, note))
          settle(note._id, err)
        }
      })
      pins.current.set(
        note._id,
        pinned.catch(() => undefined),
      )
      await pinned
    },
    async remove(note) {
      hide(note._id, true)
      try {
        await (pins.current.get(note._id) ?? Promise.resolve())
        await call(api.deleteNote(token, note._id, latest(note.updatedOn)))
        apply((list) => without(list, note._id))
      } catch (err) {
        // Already gone is what a delete asks for: not a failure to show.
        if (isGone(err)) apply((list) => without(list, note._id))
        else settle(note._id, err)
      } finally {
        hide(note._id, false)
      }
    },
    async restore(id) {
      const { note } = await call(api.restoreNote(token, id))
      setAll((list) => (list ? upsert(list, note) : list))
      refreshSearch()
      return note
    },
    changed(note) {
      apply((list) => replaceIfPresent(list, note))
      refreshSearch()
    },
  }
}
