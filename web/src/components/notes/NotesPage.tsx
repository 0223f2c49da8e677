// The signed-in screen: search (literal unless the regex switch is on), the tag filter, cards or
// list, the editor and a note's history. Every change shows at once; a delete moves the note to
// the trash, with an Undo for a few seconds; every failure is shown.
import { Suspense, lazy, useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { highlighter } from '../../highlight'
import { useNotes } from '../../notes-state'
import { useSession, useSignedIn } from '../../session'
import { type View, loadView, saveView } from '../../storage'
import { Header } from '../Header'
import { GridIcon, ListIcon, PlusIcon } from '../Icons'
import type { EditorTarget } from '../NoteEditor'
import { useToasts } from '../Toasts'
import { NotesBody, SearchStatus } from './NotesBody'
import { TagFilter, useTagFilter } from './TagFilter'
import { useCardActions } from './use-card-actions'
import { useEditorSession } from './use-editor-session'
import { useShortcuts } from './use-shortcuts'

// The editor is a chunk of its own, kept out of the first download; the page fetches it once it has shown the notes
// (loadEditor), so it is there by the time a person opens a note, and the service worker keeps it for offline use.
const loadEditor = () => import('../NoteEditor')
const NoteEditor = lazy(() => loadEditor().then((module) => ({ default: module.NoteEditor })))

// The history and its diff are a chunk of their own, fetched the first time a history opens.
const HistoryDialog = lazy(() =>
  import('../history/HistoryDialog').then(
    (module) => ({ default: module.HistoryDialog }),
    () => ({ default: HistoryUnavailable }),
  ),
)

// Offline and waiting changes: part of the sync code's chunk, which the notes page loads as it starts.
const SyncIndicator = lazy(() =>
  import('../../sync/engine').then(
    (module) => ({ default: module.SyncIndicator }),
    () => ({ default: () => null }),
  ),
)

function HistoryUnavailable({ onClose }: { onClose: () => void }) {
  return (
    <div className="toasts">
      <div className="toast error" role="alert">
        <span className="toast-message">
          The history could not be loaded. Check your connection and reload the page.
        </span>
        <button type="button" className="toast-action" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  )
}

export function NotesPage() {
  const session = useSession()
  const { token, user } = useSignedIn()
  const toasts = useToasts()
  const [typed, setTyped] = useState('')
  const [regex, setRegex] = useState(false)
  const [view, setView] = useState<View>(loadView)
  const [editing, setEditing] = useState<EditorTarget>()
  const [historyOf, setHistoryOf] = useState<string>()
  const notice = useCallback((message: string) => toasts.show({ kind: 'error', message }), [toasts])
  const notes = useNotes({
    token,
    userId: user._id,
    typed,
    regex,
    onSessionEnded: session.ended,
    onNotice: notice,
    editing: editing?.noteId,
  })
  const editor = useEditorSession(notes, user._id, [editing, setEditing])
  const tags = useTagFilter(notes.all)
  const actions = useCardActions(notes, { open: editor.open, filter: tags.setTag, showHistory: setHistoryOf })
  const searchBox = useRef<HTMLInputElement>(null)
  useShortcuts(searchBox, editor.openNew, editing !== undefined)

  useEffect(() => void loadEditor().catch(() => {}), [])

  useEffect(() => {
    document.title = 'Notes'
  }, [])

  const base = notes.search ? notes.search.notes : notes.all
  const tag = tags.tag
  const visible = useMemo(() => (tag ? base?.filter((n) => n.tags.includes(tag)) : base), [base, tag])
  const pattern = notes.search?.pattern
  const highlight = useMemo(() => highlighter(pattern), [pattern])

  function chooseView(next: View) {
    setView(next)
    saveView(next)
  }

  const historyNote = historyOf ? notes.all?.find((n) => n._id === historyOf) : undefined

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
          <TagFilter {...tags} />
          <div className="toolbar-actions">
            <div className="segmented" role="group" aria-label="Layout">
              <button
                type="button"
                aria-pressed={view === 'cards'}
                aria-label="Cards"
                title="Cards"
                onClick={() => chooseView('cards')}
              >
                <GridIcon />
              </button>
              <button
                type="button"
                aria-pressed={view === 'list'}
                aria-label="List"
                title="List"
                onClick={() => chooseView('list')}
              >
                <ListIcon />
              </button>
            </div>
            <button
              type="button"
              className="button primary"
              onClick={editor.openNew}
              aria-keyshortcuts="n"
              title="New note (N)"
            >
              <PlusIcon /> <span>New note</span>
            </button>
          </div>
        </div>
        {notes.sync && (
          <Suspense fallback={null}>
            <SyncIndicator sync={notes.sync} />
          </Suspense>
        )}
        <SearchStatus search={notes.search} visible={visible} tag={tag} />
        <NotesBody
          notes={notes}
          visible={visible}
          typed={typed}
          regex={regex}
          tag={tag}
          view={view}
          highlight={highlight}
          actions={actions}
          onNew={editor.openNew}
        />
      </main>
      {editing && (
        <Suspense fallback={null}>
          <NoteEditor
            key={`${editing.noteId ?? 'new'} ${editing.version ?? ''}`}
            target={editing}
            knownTags={tags.known}
            onSave={editor.save}
            onSaveAsNew={editor.saveAsNew}
            onClose={editor.close}
            conflict={editor.heldConflict?.theirs}
            onHistory={editing.noteId ? () => setHistoryOf(editing.noteId) : undefined}
            dirtyRef={editor.dirty}
          />
        </Suspense>
      )}
      {historyNote && (
        <Suspense fallback={null}>
          <HistoryDialog
            key={historyNote._id}
            note={historyNote}
            onRestored={editor.restored}
            onChanged={notes.changed}
            onClose={() => setHistoryOf(undefined)}
          />
        </Suspense>
      )}
    </>
  )
}
