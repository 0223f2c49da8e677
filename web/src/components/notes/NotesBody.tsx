// What the notes page shows under its toolbar: the search's status line, then the notes, or why
// there are none (still loading, could not be loaded, nothing matches, nothing written yet).
import type { Note } from '../../api'
import type { NotesState } from '../../notes-state'
import type { View } from '../../storage'
import { PlusIcon } from '../Icons'
import type { NoteActions } from '../NoteCard'
import { NoteGrid } from '../NoteGrid'
import { quoted } from './quoted'

const plural = (n: number, one: string) => `${n.toLocaleString('en')} ${one}${n === 1 ? '' : 's'}`

/** The search's error, or how many notes match (with the tag filter); nothing without a search. */
export function SearchStatus({
  search,
  visible,
  tag,
}: {
  search: NotesState['search']
  visible: Note[] | undefined
  tag: string | undefined
}) {
  if (search?.error) {
    return (
      <p className="banner error" role="alert">
        {search.error}
      </p>
    )
  }
  if (search && visible) {
    return (
      <p className="result-count" role="status">
        {search.pending ? 'Searching… ' : ''}
        {plural(visible.length, 'note')} {visible.length === 1 ? 'matches' : 'match'}
        {tag ? ` with the tag “${tag}”` : ''}
      </p>
    )
  }
  if (search) {
    return (
      <p className="result-count" role="status">
        Searching…
      </p>
    )
  }
  return null
}

interface BodyProps {
  notes: NotesState
  /** The notes to show: the search's or all, filtered by the tag; undefined until there are any. */
  visible: Note[] | undefined
  typed: string
  regex: boolean
  tag: string | undefined
  view: View
  highlight: RegExp | undefined
  actions: NoteActions
  onNew: () => void
}

export function NotesBody({ notes, visible, typed, regex, tag, view, highlight, actions, onNew }: BodyProps) {
  const searching = notes.search !== undefined
  if (notes.loadError && !notes.all) {
    return (
      <div className="empty" role="alert">
        <p className="empty-title">Your notes could not be loaded</p>
        <p>{notes.loadError}</p>
        <button type="button" className="button" onClick={notes.reload}>
          Try again
        </button>
      </div>
    )
  }
  if (!visible) {
    return searching ? null : (
      <p className="loading" role="status">
        Loading your notes…
      </p>
    )
  }
  if (visible.length === 0) {
    return (
      <div className="empty">
        {searching ? (
          <p className="empty-title">No notes match {regex ? 'this pattern' : quoted(typed.trim())}</p>
        ) : tag ? (
          <p className="empty-title">No notes with the tag “{tag}”</p>
        ) : (
          <>
            <p className="empty-title">No notes yet</p>
            <p>Notes you write appear here. Press N anywhere to start one.</p>
            <button type="button" className="button primary" onClick={onNew}>
              <PlusIcon /> Write your first note
            </button>
          </>
        )}
      </div>
    )
  }
  return <NoteGrid notes={visible} view={view} highlight={highlight} {...actions} />
}
