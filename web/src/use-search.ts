// The current search's results for the notes page: GET /search-notes, debounced, the older request cancelled; on
// the replica while offline; and, between answers, the notes changed since the answer came taken in (live-search.ts).
import { type MutableRefObject, useEffect, useMemo, useState } from 'react'
import { ApiError, type Note, api } from './api'
import { liveResults, versionsOf } from './live-search'
import { searchPattern } from './search'
import type { localMatcher } from './sync/offline-search'

export interface SearchState {
  pattern: string
  /** Undefined while the first answer for this pattern is on its way. */
  notes: Note[] | undefined
  error: string | undefined
  pending: boolean
}

/** A search as answered: with the versions of the notes the page held then (live-search.ts). */
type AnsweredSearch = SearchState & { seen?: ReadonlyMap<string, string> }

export const SEARCH_DEBOUNCE_MS = 250

export interface SearchOptions {
  token: string
  typed: string
  regex: boolean
  online: boolean
  /** The notes as the page shows them now, and a ref that reads them inside a pending request. */
  all: Note[] | undefined
  allRef: MutableRefObject<Note[] | undefined>
  /** The offline search's matcher, once the sync engine's chunk has loaded. */
  matcherOf: MutableRefObject<typeof localMatcher | undefined>
  /** An error's message to show, the session's end handled. */
  failed: (err: unknown) => string
}

export function useSearch({ token, typed, regex, online, all, allRef, matcherOf, failed }: SearchOptions): {
  search: SearchState | undefined
  /** Asks the API again: whether a note changed here matches the search is the API's to say. */
  refresh: () => void
} {
  const [search, setSearch] = useState<AnsweredSearch>()
  const [searchCount, setSearchCount] = useState(0)
  const pattern = searchPattern(typed, regex)
  useEffect(() => {
    if (pattern === undefined) {
      setSearch(undefined)
      return
    }
    // The previous results stay on screen until this pattern's answer replaces them.
    setSearch((s) => ({
      pattern,
      notes: s?.notes,
      error: undefined,
      pending: true,
      ...(s?.seen ? { seen: s.seen } : {}),
    }))
    const abort = new AbortController()
    const offline = async () => {
      const { localSearch } = await import('./sync/engine')
      const found = localSearch(allRef.current ?? [], pattern)
      if (abort.signal.aborted) return
      const answered = {
        pattern,
        error: 'error' in found ? found.error : undefined,
        pending: false,
        seen: versionsOf(allRef.current),
      }
      setSearch({ ...answered, notes: 'notes' in found ? found.notes : undefined })
    }
    const timer = setTimeout(() => {
      if (!online) return void offline()
      api.search(token, pattern, abort.signal).then(
        ({ notes }) =>
          setSearch({ pattern, notes, error: undefined, pending: false, seen: versionsOf(allRef.current) }),
        (err: unknown) => {
          if (abort.signal.aborted) return
          if (err instanceof ApiError && err.status === 0) return void offline()
          setSearch({ pattern, notes: undefined, error: failed(err), pending: false })
        },
      )
    }, SEARCH_DEBOUNCE_MS)
    return () => {
      clearTimeout(timer)
      abort.abort()
    }
  }, [token, pattern, searchCount, failed, online])

  // The search's notes as they are now: changed, pinned, deleted, added, matching or no longer since the answer came.
  const live = useMemo(() => {
    if (!search?.notes || !all) return { search, undecided: false }
    const matcher = matcherOf.current?.(search.pattern)
    const { notes, undecided } = liveResults(
      search.notes,
      search.seen ?? new Map(),
      all,
      typeof matcher === 'function' ? matcher : undefined,
    )
    return { search: { ...search, notes }, undecided }
  }, [search, all])
  useEffect(() => {
    // A changed note this device cannot match: the API says whether it does.
    if (live.undecided) setSearchCount((n) => n + 1)
  }, [live.undecided])

  return {
    search: live.search,
    refresh() {
      if (pattern !== undefined) setSearchCount((n) => n + 1)
    },
  }
}
