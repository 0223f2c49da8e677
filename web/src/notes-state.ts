// The signed-in person's notes as the app holds them: the replica on this device with the changes
// made here applied (sync/engine.ts, a chunk of its own, loaded as the page starts), kept current
// by the change stream; the current search's results (use-search.ts: GET /search-notes, debounced, the older
// request cancelled; on the replica while offline), which take in the notes changed since they
// came (live-search.ts); and every change made here shown at once, in
// the API's order (note-order.ts). Changes go through the outbox: online each is sent at once and
// a 412 or 404 comes back to the caller as before (the note as it is now is shown); offline they
// wait, and the engine sends them when the network returns.
import { useCallback, useEffect, useRef, useState } from 'react'
import { ApiError, type Note, type NoteFields, SessionEndedError, UNREACHABLE, answerOf, api, messageOf } from './api'
import { takeEarlyListing } from './early-listing'
import { compareNotes } from './note-order'
import type { SyncEngine, SyncStatus } from './sync/engine'
import type { localMatcher } from './sync/offline-search'
import { type SearchState, useSearch } from './use-search'

export { compareNotes }
export { SEARCH_DEBOUNCE_MS, type SearchState } from './use-search'

/** An edit sent from the outbox met a newer version of the note open in the editor. */
export interface HeldConflict {
  seq: number
  noteId: string
  theirs: Note
}

export interface NotesState {
  all: Note[] | undefined
  loadError: string | undefined
  search: SearchState | undefined
  /** Online, and how many changes wait; undefined until the replica is open. */
  sync: SyncStatus | undefined
  conflict: HeldConflict | undefined
  /** The person chose in the editor's conflict: the held change goes. */
  release: (seq: number) => void
  reload: () => void
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

export interface NotesOptions {
  token: string
  userId: string
  typed: string
  regex: boolean
  /** Runs on any 401. */
  onSessionEnded: () => void
  /** Something to tell the person about a change sent from the outbox. */
  onNotice: (message: string) => void
  /** The id of the note open in the editor, if any: an outbox edit of it that meets a newer version waits for the person's choice. */
  editing: string | undefined
}

function upsert(list: Note[], note: Note): Note[] {
  return [...list.filter((n) => n._id !== note._id), note].sort(compareNotes)
}

let localIds = 0
const localId = () => `local-${Date.now().toString(36)}-${(localIds++).toString(36)}`

/**
 * Other failures reject the returned promises (the caller shows them) or land in loadError /
 * search.error.
 */
export function useNotes({ token, userId, typed, regex, onSessionEnded, onNotice, editing }: NotesOptions): NotesState {
  const [all, setAll] = useState<Note[]>()
  const [loadError, setLoadError] = useState<string>()
  const [sync, setSync] = useState<SyncStatus>()
  const [conflict, setConflict] = useState<HeldConflict>()
  const [loadCount, setLoadCount] = useState(0)
  const engine = useRef<Promise<SyncEngine | undefined>>(Promise.resolve(undefined))
  /** The offline search's matcher, once the engine's chunk (which holds it) has loaded: live changes come from there. */
  const matcherOf = useRef<typeof localMatcher | undefined>(undefined)
  /** Whether the engine shows the notes (the replica), rather than the first listing. */
  const listed = useRef(false)
  const allRef = useRef(all)
  allRef.current = all
  const callbacks = useRef({ onSessionEnded, onNotice })
  callbacks.current = { onSessionEnded, onNotice }
  const holding = useRef(editing)
  holding.current = editing

  const failed = useCallback((err: unknown): string => {
    if (err instanceof SessionEndedError) callbacks.current.onSessionEnded()
    return messageOf(err)
  }, [])

  useEffect(() => {
    const abort = new AbortController()
    listed.current = false
    setLoadError(undefined)
    // Without a replica on this device, the listing asked for as the page started shows first.
    const early = takeEarlyListing(token)
    if (early) {
      answerOf<{ notes: Note[] }>(early, abort.signal).then(
        ({ notes }) => {
          if (!abort.signal.aborted && !listed.current) setAll(notes)
        },
        (err: unknown) => {
          if (!abort.signal.aborted && !listed.current) setLoadError(failed(err))
        },
      )
    }
    const started = import('./sync/engine').then(
      ({ SyncEngine, localMatcher }) => {
        matcherOf.current = localMatcher
        if (abort.signal.aborted) return undefined
        const engine = new SyncEngine(
          token,
          userId,
          {
            notes(notes) {
              listed.current = true
              setAll(notes)
              setLoadError(undefined)
            },
            status: setSync,
            loadFailed(message) {
              if (!listed.current && !allRef.current) setLoadError(message)
            },
            sessionEnded: () => callbacks.current.onSessionEnded(),
            notice: (message) => callbacks.current.onNotice(message),
            conflict: (seq, _mine, theirs) => setConflict({ seq, noteId: theirs._id, theirs }),
          },
          { api, answerOf },
        )
        engine.hold(holding.current)
        return engine
      },
      () => {
        if (!abort.signal.aborted && !allRef.current) setLoadError(UNREACHABLE)
        return undefined
      },
    )
    engine.current = started
    return () => {
      abort.abort()
      void started.then((e) => e?.stop())
    }
  }, [token, userId, loadCount, failed])

  useEffect(() => {
    void engine.current.then((e) => e?.hold(editing))
  }, [editing])

  const { search: shownSearch, refresh: refreshSearch } = useSearch({
    token,
    typed,
    regex,
    online: sync?.online ?? true,
    all,
    allRef,
    matcherOf,
    failed,
  })

  /** Sends a change through the engine; before the replica shows, `shown` puts its result in the list. */
  const submit = async (
    change: Parameters<SyncEngine['submit']>[0],
    shown: (list: Note[], note: Note | undefined) => Note[],
  ): Promise<Note | undefined> => {
    const sync = await engine.current
    if (!sync) throw new ApiError(UNREACHABLE, 0)
    try {
      const note = await sync.submit(change)
      if (!listed.current) setAll((list) => (list ? shown(list, note) : list))
      return note
    } catch (err) {
      const message = failed(err)
      throw err instanceof ApiError ? err : new ApiError(message, 0)
    }
  }

  return {
    all,
    loadError,
    search: shownSearch,
    sync,
    conflict,
    release(seq) {
      setConflict(undefined)
      void engine.current.then((e) => e?.release(seq))
    },
    reload: () => {
      setLoadCount((n) => n + 1)
    },
    async create(fields) {
      const note = await submit({ kind: 'add', noteId: localId(), fields }, (list, n) => (n ? upsert(list, n) : list))
      refreshSearch()
      return note!
    },
    async edit(id, fields, version) {
      const note = await submit({ kind: 'edit', noteId: id, base: version, fields }, (list, n) =>
        n ? upsert(list, n) : list,
      )
      refreshSearch()
      return note!
    },
    async setPinned(note, isPinned) {
      await submit({ kind: 'pin', noteId: note._id, base: note.updatedOn, isPinned }, (list, n) =>
        n ? upsert(list, n) : list,
      )
    },
    async remove(note) {
      await submit({ kind: 'delete', noteId: note._id, base: note.updatedOn }, (list) =>
        list.filter((n) => n._id !== note._id),
      )
    },
    async restore(id) {
      const { note } = await api.restoreNote(token, id).catch((err: unknown) => {
        failed(err)
        throw err
      })
      const sync = await engine.current
      if (sync && listed.current) sync.put(note)
      else setAll((list) => (list ? upsert(list, note) : list))
      refreshSearch()
      return note
    },
    changed(note) {
      void engine.current.then((sync) => {
        if (sync && listed.current) sync.put(note)
        else setAll((list) => (list ? upsert(list, note) : list))
      })
      refreshSearch()
    },
  }
}
