// The signed-in screen: search (literal unless the regex switch is on), the tag filter, cards or
// list, and the editor. Every change shows at once; a delete can be undone for a few seconds
// before it is sent (and is sent at once if the page goes away); every failure is shown.
import { type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { ApiError, type Note, type NoteFields, messageOf } from '../api'
import { useNotes } from '../notes-state'
import { highlighter } from '../search'
import { useSession, useSignedIn } from '../session'
import { type View, loadView, saveView, takeDraft } from '../storage'
import { Header } from './Header'
import { GridIcon, ListIcon, PlusIcon } from './Icons'
import { type EditorTarget, NoteEditor } from './NoteEditor'
import { NoteGrid } from './NoteGrid'
import { useToasts } from './Toasts'

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

export function NotesPage() {
  const session = useSession()
  const { token, user } = useSignedIn()
  const toasts = useToasts()
  const [typed, setTyped] = useState('')
  const [regex, setRegex] = useState(false)
  const [tag, setTag] = useState<string>()
  const [view, setView] = useState<View>(loadView)
  const [editing, setEditing] = useState<EditorTarget>()
  const [deleting, setDeleting] = useState<ReadonlySet<string>>(() => new Set())
  const notes = useNotes(token, typed, regex, session.ended)
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
    setEditing({ title: draft.title, content: draft.content, tags: draft.tags, noteId: exists ? draft.noteId : undefined, restored: true })
  }, [loaded, user._id])

  const tagCounts = useMemo(() => countTags(notes.all), [notes.all])
  const knownTags = useMemo(() => tagCounts.map(([t]) => t), [tagCounts])
  useEffect(() => {
    if (tag && notes.all && !tagCounts.some(([t]) => t === tag)) setTag(undefined)
  }, [tag, tagCounts, notes.all])

  const searching = notes.search !== undefined
  const base = searching ? notes.search?.notes : notes.all
  const visible = useMemo(() => base?.filter((n) => !deleting.has(n._id) && (!tag || n.tags.includes(tag))), [base, deleting, tag])
  const pattern = notes.search?.pattern
  const highlight = useMemo(() => highlighter(pattern), [pattern])

  // Deletes waiting for their undo window to pass.
  const pending = useRef(new Map<string, { note: Note; toast: number }>())
  const notesRef = useRef(notes)
  notesRef.current = notes
  const forget = (id: string) =>
    setDeleting((set) => {
      const next = new Set(set)
      next.delete(id)
      return next
    })

  const commitDelete = useCallback(
    (id: string, keepalive = false): Promise<void> => {
      const entry = pending.current.get(id)
      if (!entry) return Promise.resolve()
      pending.current.delete(id)
      return notesRef.current.remove(id, keepalive).then(
        () => forget(id),
        (err: unknown) => {
          forget(id)
          if (err instanceof ApiError && err.status === 401) return
          toasts.show({ kind: 'error', message: `${quoted(entry.note.title)} was not deleted: ${messageOf(err)}` })
        },
      )
    },
    [toasts],
  )

  /** Sends every delete still waiting for its undo; settles when the API has answered them all. */
  const flushDeletes = useCallback(async () => {
    const sent = [...pending.current].map(([id, entry]) => {
      const answered = commitDelete(id, true)
      toasts.dismiss(entry.toast, false)
      return answered
    })
    await Promise.all(sent)
  }, [commitDelete, toasts])

  useEffect(() => {
    const onPageHide = () => void flushDeletes()
    window.addEventListener('pagehide', onPageHide)
    return () => {
      window.removeEventListener('pagehide', onPageHide)
      void flushDeletes()
    }
  }, [flushDeletes])

  const actions = useMemo(
    () => ({
      onOpen: (note: Note) => setEditing({ noteId: note._id, title: note.title, content: note.content, tags: note.tags }),
      onTag: (t: string) => setTag(t),
      onPin: (note: Note, isPinned: boolean) => {
        notesRef.current.setPinned(note, isPinned).catch((err: unknown) => {
          if (err instanceof ApiError && err.status === 401) return
          toasts.show({ kind: 'error', message: `Could not ${isPinned ? 'pin' : 'unpin'} ${quoted(note.title)}: ${messageOf(err)}` })
        })
      },
      onDelete: (note: Note) => {
        // One undo at a time: an earlier delete goes through now.
        for (const [, entry] of pending.current) toasts.dismiss(entry.toast)
        setDeleting((set) => new Set(set).add(note._id))
        const toast = toasts.show({
          message: `Deleted ${quoted(note.title)}`,
          timeoutMs: UNDO_MS,
          action: {
            label: 'Undo',
            run: () => {
              pending.current.delete(note._id)
              forget(note._id)
            },
          },
          onExpire: () => void commitDelete(note._id),
        })
        pending.current.set(note._id, { note, toast })
      },
    }),
    [toasts, commitDelete],
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

  async function save(fields: NoteFields) {
    const target = editing
    if (target?.noteId) await notes.edit(target.noteId, fields)
    else await notes.create(fields)
    setEditing(undefined)
    toasts.show({ message: target?.noteId ? 'Note saved' : 'Note added' })
  }

  // The session ends after the waiting deletes are answered: they are sent with its token.
  function signOut() {
    session.signOut(flushDeletes())
  }

  function chooseView(next: View) {
    setView(next)
    saveView(next)
  }

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
        onSignOut={signOut}
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
        {status}
        {body}
      </main>
      {editing && <NoteEditor key={editing.noteId ?? 'new'} target={editing} knownTags={knownTags} onSave={save} onClose={() => setEditing(undefined)} />}
    </>
  )
}
