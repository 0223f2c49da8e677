// A note's history (GET /get-note-history), loaded as a chunk of its own: the versions it had
// before each change of its title, content or tags, newest first; for the one chosen, what
// changed after it (up to the next version, or the note as it is now), and a button that makes
// it the note again (PUT /restore-revision, on the version shown, so a change made elsewhere
// meanwhile is not overwritten).
import { useEffect, useId, useRef, useState } from 'react'
import { ConflictError, type Note, type Revision, SessionEndedError, api, messageOf } from '../../api'
import { useSession, useSignedIn } from '../../session'
import { CloseIcon } from '../Icons'
import { useToasts } from '../Toasts'
import { DiffView, summary } from './DiffView'
import './history.css'

interface Props {
  note: Note
  /** The note as a restored revision made it. */
  onRestored: (note: Note) => void
  /** The note as it is now, when it changed elsewhere. */
  onChanged: (note: Note) => void
  onClose: () => void
}

/** Dates to the minute, or to the second where two would read the same. */
function labels(dates: string[]): string[] {
  const at = (date: string, seconds: boolean) =>
    new Date(date).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: seconds ? 'medium' : 'short' })
  const short = dates.map((d) => at(d, false))
  return dates.map((d, i) => (short.indexOf(short[i]!) !== short.lastIndexOf(short[i]!) ? at(d, true) : short[i]!))
}

export function HistoryDialog({ note, onRestored, onChanged, onClose }: Props) {
  const { token } = useSignedIn()
  const session = useSession()
  const toasts = useToasts()
  const dialog = useRef<HTMLDialogElement>(null)
  const ids = useId()
  const [revisions, setRevisions] = useState<Revision[]>()
  const [chosen, setChosen] = useState(0)
  const [error, setError] = useState<string>()
  const [notice, setNotice] = useState<string>()
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    const element = dialog.current
    if (element && !element.open) element.showModal()
    return () => element?.close()
  }, [])

  // Read again whenever the note changes (a version restored elsewhere adds one).
  useEffect(() => {
    const abort = new AbortController()
    api.noteHistory(token, note._id, abort.signal).then(
      (answer) => {
        setRevisions(answer.revisions)
        setChosen(0)
      },
      (err: unknown) => {
        if (abort.signal.aborted) return
        if (err instanceof SessionEndedError) session.ended()
        else setError(messageOf(err))
      },
    )
    return () => abort.abort()
  }, [token, note._id, note.updatedOn, session])

  const revision = revisions?.[chosen]
  const after = chosen === 0 ? note : revisions?.[chosen - 1]
  const dates = labels(revisions?.map((r) => r.editedOn) ?? [])

  async function restore() {
    if (!revision) return
    setBusy(true)
    setError(undefined)
    setNotice(undefined)
    try {
      const { note: saved } = await api.restoreRevision(token, note._id, revision._id, note.updatedOn)
      onRestored(saved)
      toasts.show({ message: `Restored the version of ${dates[chosen] ?? ''}` })
      onClose()
    } catch (err) {
      setBusy(false)
      if (err instanceof SessionEndedError) return session.ended()
      if (err instanceof ConflictError) {
        setNotice(
          'This note was changed elsewhere meanwhile, so nothing was restored. Its history is shown again as it is now.',
        )
        onChanged(err.note)
      } else {
        setError(messageOf(err))
      }
    }
  }

  let body
  if (!revisions) {
    body = error ? null : (
      <p className="loading" role="status">
        Loading the history…
      </p>
    )
  } else if (revisions.length === 0) {
    body = (
      <div className="empty history-empty">
        <p className="empty-title">No earlier versions yet</p>
        <p>Each time the title, content or tags change, the version before is kept here.</p>
      </div>
    )
  } else {
    body = (
      <div className="history-body">
        <ol className="revisions" aria-label="Versions, newest first">
          {revisions.map((r, i) => (
            <li key={r._id}>
              <button type="button" aria-pressed={i === chosen} onClick={() => setChosen(i)}>
                <time dateTime={r.editedOn}>{dates[i]}</time>
                <span className="revision-summary">{summary(r, i === 0 ? note : revisions[i - 1]!)}</span>
              </button>
            </li>
          ))}
        </ol>
        {revision && after && (
          <section className="revision" aria-labelledby={`${ids}-revision`}>
            <h3 id={`${ids}-revision`}>Version of {dates[chosen]}</h3>
            <p className="revision-compared">
              What changed after it, up to{' '}
              {chosen === 0 ? 'the note as it is now' : `the version of ${dates[chosen - 1] ?? ''}`}: <del>removed</del>{' '}
              <ins>added</ins>
            </p>
            <DiffView from={revision} to={after} />
            <button type="button" className="button primary" disabled={busy} onClick={() => void restore()}>
              {busy ? 'Restoring…' : 'Restore this version'}
            </button>
          </section>
        )}
      </div>
    )
  }

  return (
    <dialog
      ref={dialog}
      className="editor history"
      aria-labelledby={`${ids}-heading`}
      onCancel={(e) => {
        e.preventDefault()
        onClose()
      }}
    >
      <div className="history-inner">
        <header className="editor-header">
          <h2 id={`${ids}-heading`} className="history-heading">
            History of “{note.title || 'Untitled'}”
          </h2>
          <button type="button" className="icon-button" aria-label="Close" title="Close (Esc)" onClick={onClose}>
            <CloseIcon />
          </button>
        </header>
        {notice && (
          <p className="notice warn" role="status">
            {notice}
          </p>
        )}
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        {body}
      </div>
    </dialog>
  )
}
