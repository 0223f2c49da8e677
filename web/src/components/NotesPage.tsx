// The signed-in screen: search (literal unless the regex switch is on), the tag filter, cards or
// list, the editor and a note's history. Every change shows at once; a delete moves the note to
// the trash, with an Undo for a few seconds; every failure is shown.
import { type ReactNode, Suspense, lazy, useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { ApiError, ConflictError, type Note, type NoteFields, messageOf } from '../api'
import { highlighter } from '../highlight'
import { useNotes } from '../notes-state'
import { useSession, useSignedIn } from '../session'
import { type View, loadView, saveView, takeDraft } from '../storage'
import { Header } from './Header'
import { GridIcon, ListIcon, PlusIcon } from './Icons'
import type { EditorTarget } from './NoteEditor'
import { NoteGrid } from './NoteGrid'
import { useToasts } from './Toasts'

// The editor is a chunk of its own, kept out of the first download; the page fetches it once it has shown the notes
// (preloadEditor), so it is there by the time a person opens a note, and the service worker keeps it for offline use.
const loadEditor = () => import('./NoteEditor')
const NoteEditor = lazy(() => loadEditor().then((module) => ({ default: module.NoteEditor })))

// The history and its diff are a chunk of their own, fetched the first time a history opens.
const HistoryDialog = lazy(() =>
  import('./history/HistoryDialog').then(
    (module) => ({ default: module.HistoryDialog }),
    () => ({ default: HistoryUnavailable }),
  ),
)

// Offline and waiting changes: part of the sync code's chunk, which the notes page loads as it starts.
const SyncIndicator = lazy(() =>
  import('../sync/engine').then(
    (module) => ({ default: module.SyncIndicator }),
    () => ({ default: () => null }),
  ),
)

function HistoryUnavailable({ onClose }: { onClose: () => void }) {
  return (
    <div className="toasts">
      <div className="toast error" role="alert">
        <span className="toast-message">The history could not be loaded. Check your connection and reload the page.</span>
        <button type="button" className="toast-action" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  )
}

const UNDO_MS = 6000

function countTags(notes: Note[] | undefined): Array<[string, number]> {
  const counts = new Map<string, number>()
  for (const note of notes ?? []) for (const tag of note.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1)
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
}

const plural = (n: number, one: string) => `${n.toLocaleString('en')} ${one}${n === 1 ? '' : 's'}`

const QUOTED_MAX = 60

/**
 * A title or search quoted in a message, in quotation marks, cut to its first 60 characters: a
 * toast quoting a 1 000-character title would cover a phone's screen and push the API's message,
 * which follows the quote, out of sight.
 */
function quoted(text: string): string {
  const characters = [...text]
  return `“${characters.length > QUOTED_MAX ? `${characters.slice(0, QUOTED_MAX).join('')}…` : text}”`
}

const targetOf = (note: Note): EditorTarget => ({ noteId: note._id, version: note.updatedOn, title: note.title, content: note.content, tags: note.tags })

export function NotesPage() {
  const session = useSession()
  const { token, user } = useSignedIn()
  const toasts = useToasts()
  const [typed, setTyped] = useState('')
  const [regex, setRegex] = useState(false)
  const [tag, setTag] = useState<string>()
  const [view, setView] = useState<View>(loadView)
  const [editing, setEditing] = useState<EditorTarget>()
  const [historyOf, setHistoryOf] = useState<string>()
  const editorDirty = useRef(false)
  const notice = useCallback((message: string) => toasts.show({ kind: 'error', message }), [toasts])
  const notes = useNotes({ token, userId: user._id, typed, regex, onSessionEnded: session.ended, onNotice: notice, editing: editing?.noteId })

  useEffect(() => void loadEditor().catch(() => {}), [])

  const searchBox = useRef<HTMLInputElement>(null)

  useEffect(() => {
    document.title = 'Notes'
  }, [])

  // A draft kept when the session ended comes back once the notes are here.
  const loaded = notes.all !== undefined
  const allRef = useRef(notes.all)
  allRef.current = notes.all
  useEffect(() => {
    if (!loaded) return
    const draft = takeDraft(user._id)
    if (!draft) return
    const exists = allRef.current?.some((n) => n._id === draft.noteId)
    setEditing({ title: draft.title, content: draft.content, tags: draft.tags, noteId: exists ? draft.noteId : undefined, version: draft.version, restored: true })
  }, [loaded, user._id])

  const tagCounts = useMemo(() => countTags(notes.all), [notes.all])
  const knownTags = useMemo(() => tagCounts.map(([t]) => t), [tagCounts])
  useEffect(() => {
    if (tag && notes.all && !tagCounts.some(([t]) => t === tag)) setTag(undefined)
  }, [tag, tagCounts, notes.all])

  const searching = notes.search !== undefined
  const base = searching ? notes.search?.notes : notes.all
  const visible = useMemo(() => (tag ? base?.filter((n) => n.tags.includes(tag)) : base), [base, tag])
  const pattern = notes.search?.pattern
  const highlight = useMemo(() => highlighter(pattern), [pattern])

  const notesRef = useRef(notes)
  notesRef.current = notes

  /**
   * A failure of a change to `note` ("pin", "pinned"), shown unless the session ended (the
   * sign-in page says so). A 412 changed nothing: the note already shows as it is now.
   */
  const failed = useCallback(
    (note: Note, [verb, done]: [string, string], err: unknown) => {
      if (err instanceof ApiError && err.status === 401) return
      const message =
        err instanceof ConflictError
          ? `${quoted(note.title)} was changed elsewhere, so it was not ${done}. It shows the latest version now.`
          : `Could not ${verb} ${quoted(note.title)}: ${messageOf(err)}`
      toasts.show({ kind: 'error', message })
    },
    [toasts],
  )

  const actions = useMemo(
    () => ({
      onOpen: (note: Note) => setEditing(targetOf(note)),
      onTag: (t: string) => setTag(t),
      onPin: (note: Note, isPinned: boolean) => {
        notesRef.current.setPinned(note, isPinned).catch((err: unknown) => failed(note, isPinned ? ['pin', 'pinned'] : ['unpin', 'unpinned'], err))
      },
      onDelete: (note: Note) => {
        notesRef.current.remove(note).then(
          () =>
            toasts.show({
              message: 'Note moved to trash',
              timeoutMs: UNDO_MS,
              action: {
                label: 'Undo',
                run: () => void notesRef.current.restore(note._id).catch((err: unknown) => failed(note, ['restore', 'restored'], err)),
              },
            }),
          (err: unknown) => failed(note, ['delete', 'deleted'], err),
        )
      },
      onHistory: (note: Note) => setHistoryOf(note._id),
    }),
    [toasts, failed],
  )

  const openNew = useCallback(() => setEditing({ title: '', content: '', tags: [] }), [])
  const editingRef = useRef(editing)
  editingRef.current = editing

  // n: new note, /: search; not while typing or while the editor is open.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || editingRef.current) return
      const target = event.target as HTMLElement | null
      if (target?.closest('input, textarea, select, [contenteditable="true"], dialog')) return
      if (event.key === 'n' || event.key === 'N') {
        event.preventDefault()
        openNew()
      } else if (event.key === '/') {
        event.preventDefault()
        searchBox.current?.focus()
        searchBox.current?.select()
      }
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [openNew])

  /** A conflict from the outbox that the open editor shows: whatever the person does next settles it. */
  const heldConflict = notes.conflict && notes.conflict.noteId === editing?.noteId ? notes.conflict : undefined
  function settleHeld() {
    if (heldConflict) notes.release(heldConflict.seq)
  }

  /** What a save says: offline, the change waits on this device. */
  const savedMessage = (done: string) => (notes.sync && !notes.sync.online ? `${done} on this device; it is sent when you are back online` : done)

  function closeEditor() {
    settleHeld()
    setEditing(undefined)
  }

  async function save(fields: NoteFields, version: string | undefined) {
    settleHeld()
    const target = editing
    // A note opened without a version (a draft kept from before) is edited on the one shown now.
    const shown = notes.all?.find((n) => n._id === target?.noteId)?.updatedOn
    if (target?.noteId) await notes.edit(target.noteId, fields, version ?? shown ?? '')
    else await notes.create(fields)
    setEditing(undefined)
    toasts.show({ message: savedMessage(target?.noteId ? 'Note saved' : 'Note added') })
  }

  async function saveAsNew(fields: NoteFields) {
    settleHeld()
    await notes.create(fields)
    setEditing(undefined)
    toasts.show({ message: 'Your version was added as a new note' })
  }

  /** A revision restored: the lists show it, and an editor of the note without changes does too. */
  function restored(note: Note) {
    notes.changed(note)
    if (editing?.noteId === note._id && !editorDirty.current) setEditing(targetOf(note))
  }

  function chooseView(next: View) {
    setView(next)
    saveView(next)
  }

  const historyNote = historyOf ? notes.all?.find((n) => n._id === historyOf) : undefined

  const search = notes.search
  let status: ReactNode = null
  if (search?.error) {
    status = (
      <p className="banner error" role="alert">
        {search.error}
      </p>
    )
  } else if (searching && visible) {
    status = (
      <p className="result-count" role="status">
        {search?.pending ? 'Searching… ' : ''}
        {plural(visible.length, 'note')} {visible.length === 1 ? 'matches' : 'match'}
        {tag ? ` with the tag “${tag}”` : ''}
      </p>
    )
  } else if (searching) {
    status = (
      <p className="result-count" role="status">
        Searching…
      </p>
    )
  }

  let body: ReactNode
  if (notes.loadError && !notes.all) {
    body = (
      <div className="empty" role="alert">
        <p className="empty-title">Your notes could not be loaded</p>
        <p>{notes.loadError}</p>
        <button type="button" className="button" onClick={notes.reload}>
          Try again
        </button>
      </div>
    )
  } else if (!visible) {
    body = searching ? null : (
      <p className="loading" role="status">
        Loading your notes…
      </p>
    )
  } else if (visible.length === 0) {
    body = (
      <div className="empty">
        {searching ? (
          <p className="empty-title">No notes match {regex ? 'this pattern' : quoted(typed.trim())}</p>
        ) : tag ? (
          <p className="empty-title">No notes with the tag “{tag}”</p>
        ) : (
          <>
            <p className="empty-title">No notes yet</p>
            <p>Notes you write appear here. Press N anywhere to start one.</p>
            <button type="button" className="button primary" onClick={openNew}>
              <PlusIcon /> Write your first note
            </button>
          </>
        )}
      </div>
    )
  } else {
    body = <NoteGrid notes={visible} view={view} highlight={highlight} {...actions} />
  }

  return (
    <>
      <Header
        user={user}
        onSignOut={() => session.signOut()}
        search={{ typed, setTyped, regex, setRegex, box: searchBox }}
      />
      <main className="notes-page" id="main">
        <h1 className="visually-hidden">Your notes</h1>
        <div className="toolbar">
          <div className="tag-filter" role="group" aria-label="Filter by tag">
            {tagCounts.length > 0 && (
              <button type="button" className="filter-chip" aria-pressed={!tag} onClick={() => setTag(undefined)}>
                All notes
              </button>
            )}
            {tagCounts.map(([t, count]) => (
              <button key={t} type="button" className="filter-chip" aria-pressed={tag === t} title={t} onClick={() => setTag(tag === t ? undefined : t)}>
                <span className="filter-chip-name">{t}</span> <span className="count">{count}</span>
              </button>
            ))}
          </div>
          <div className="toolbar-actions">
            <div className="segmented" role="group" aria-label="Layout">
              <button type="button" aria-pressed={view === 'cards'} aria-label="Cards" title="Cards" onClick={() => chooseView('cards')}>
                <GridIcon />
              </button>
              <button type="button" aria-pressed={view === 'list'} aria-label="List" title="List" onClick={() => chooseView('list')}>
                <ListIcon />
              </button>
            </div>
            <button type="button" className="button primary" onClick={openNew} aria-keyshortcuts="n" title="New note (N)">
              <PlusIcon /> <span>New note</span>
            </button>
          </div>
        </div>
        {notes.sync && (
          <Suspense fallback={null}>
            <SyncIndicator sync={notes.sync} />
          </Suspense>
        )}
        {status}
        {body}
      </main>
      {editing && (
        <Suspense fallback={null}>
          <NoteEditor
            key={`${editing.noteId ?? 'new'} ${editing.version ?? ''}`}
            target={editing}
            knownTags={knownTags}
            onSave={save}
            onSaveAsNew={saveAsNew}
            onClose={closeEditor}
            conflict={heldConflict?.theirs}
            onHistory={editing.noteId ? () => setHistoryOf(editing.noteId) : undefined}
            dirtyRef={editorDirty}
          />
        </Suspense>
      )}
      {historyNote && (
        <Suspense fallback={null}>
          <HistoryDialog key={historyNote._id} note={historyNote} onRestored={restored} onChanged={notes.changed} onClose={() => setHistoryOf(undefined)} />
        </Suspense>
      )}
    </>
  )
}
