// The editor's choice when its note changed elsewhere: the person's version beside the one
// saved elsewhere, as plain text (what was typed, not its rendering), and three ways out.
import { useId } from 'react'
import type { Note, NoteFields } from '../api'

interface Props {
  mine: NoteFields
  theirs: Note
  busy: boolean
  keepMine: () => void
  keepTheirs: () => void
  keepBoth: () => void
}

function Version({ label, note }: { label: string; note: NoteFields }) {
  const id = useId()
  return (
    <section className="conflict-version" aria-labelledby={id}>
      <h3 id={id}>{label}</h3>
      <p className="conflict-title">{note.title || 'Untitled'}</p>
      <pre className="conflict-content">{note.content}</pre>
      {note.tags.length > 0 && <p className="conflict-tags">Tags: {note.tags.join(', ')}</p>}
    </section>
  )
}

export function Conflict({ mine, theirs, busy, keepMine, keepTheirs, keepBoth }: Props) {
  const hint = useId()
  const changed = new Date(theirs.updatedOn).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
  return (
    <div className="conflict" role="group" aria-label="Choose a version">
      <p className="notice warn" role="alert">
        This note was changed elsewhere ({changed}) while you were editing it. Which version do you want to keep?
      </p>
      <div className="conflict-versions">
        <Version label="Your version" note={mine} />
        <Version label="Saved elsewhere" note={theirs} />
      </div>
      <p className="conflict-hint" id={hint}>
        Keep mine saves yours over the other. Keep theirs drops your changes. Keep both adds yours as a new note.
      </p>
      <div className="conflict-actions">
        <button type="button" className="button primary" disabled={busy} aria-describedby={hint} onClick={keepMine}>
          Keep mine
        </button>
        <button type="button" className="button" disabled={busy} aria-describedby={hint} onClick={keepTheirs}>
          Keep theirs
        </button>
        <button type="button" className="button" disabled={busy} aria-describedby={hint} onClick={keepBoth}>
          Keep both
        </button>
      </div>
    </div>
  )
}
