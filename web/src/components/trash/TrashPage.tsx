// /trash, loaded as a chunk of its own (App.tsx): the notes moved to the trash (GET /get-trash),
// most recently deleted first, each restorable (PUT /restore-note) or deletable for good
// (DELETE /delete-note-forever), and the whole trash emptied at once (DELETE /empty-trash). What
// cannot be undone asks first.
import { useEffect, useId, useRef, useState } from 'react'
import { type TrashedNote, SessionEndedError, api, messageOf } from '../../api'
import { plainText } from '../../markdown'
import { navigate } from '../../router'
import { useSession, useSignedIn } from '../../session'
import { Header } from '../Header'
import { useToasts } from '../Toasts'
import { Confirm } from './Confirm'
import './trash.css'

const QUOTED_MAX = 60
const quoted = (title: string) => {
  const characters = [...(title || 'Untitled')]
  return `“${characters.length > QUOTED_MAX ? `${characters.slice(0, QUOTED_MAX).join('')}…` : characters.join('')}”`
}

const say = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' })

/** "3 minutes ago", "yesterday", else the date: when a note was deleted, as a person says it. */
function ago(date: string, now: number): string {
  const seconds = Math.round((now - new Date(date).getTime()) / 1000)
  if (seconds < 45) return 'just now'
  if (seconds < 3600) return say.format(-Math.round(seconds / 60), 'minute')
  if (seconds < 86400) return say.format(-Math.round(seconds / 3600), 'hour')
  if (seconds < 7 * 86400) return say.format(-Math.round(seconds / 86400), 'day')
  return new Date(date).toLocaleDateString(undefined, { dateStyle: 'medium' })
}

type Asking = { kind: 'empty' } | { kind: 'forever'; note: TrashedNote }

export function TrashPage() {
  const session = useSession()
  const { token, user } = useSignedIn()
  const toasts = useToasts()
  const heading = useRef<HTMLHeadingElement>(null)
  const ids = useId()
  const [notes, setNotes] = useState<TrashedNote[]>()
  const [error, setError] = useState<string>()
  const [asking, setAsking] = useState<Asking>()
  const [busy, setBusy] = useState<ReadonlySet<string>>(() => new Set())
  const [loads, setLoads] = useState(0)

  useEffect(() => {
    document.title = 'Trash · Notes'
  }, [])

  useEffect(() => {
    const abort = new AbortController()
    setError(undefined)
    api.getTrash(token, abort.signal).then(
      (answer) => setNotes(answer.notes),
      (err: unknown) => {
        if (abort.signal.aborted) return
        if (err instanceof SessionEndedError) session.ended()
        else setError(messageOf(err))
      },
    )
    return () => abort.abort()
  }, [token, session, loads])

  /** Runs one request about `id` (or the whole trash); its failure is shown in the API's words. */
  async function act(id: string, work: () => Promise<string>, what: string) {
    setBusy((set) => new Set(set).add(id))
    try {
      toasts.show({ message: await work() })
      // The focus was on a button of a row that is gone: the heading keeps the reader's place.
      heading.current?.focus()
    } catch (err) {
      if (err instanceof SessionEndedError) return session.ended()
      toasts.show({ kind: 'error', message: `${what}: ${messageOf(err)}` })
      // A note another device restored or deleted meanwhile: the list shows what is there now.
      setLoads((n) => n + 1)
    } finally {
      setBusy((set) => {
        const next = new Set(set)
        next.delete(id)
        return next
      })
    }
  }

  const drop = (id: string) => setNotes((list) => list?.filter((n) => n._id !== id))

  const restore = (note: TrashedNote) =>
    act(
      note._id,
      async () => {
        await api.restoreNote(token, note._id)
        drop(note._id)
        return `Restored ${quoted(note.title)}`
      },
      `${quoted(note.title)} was not restored`,
    )

  function confirmed() {
    const question = asking
    setAsking(undefined)
    if (question?.kind === 'forever') {
      const { note } = question
      void act(
        note._id,
        async () => {
          await api.deleteForever(token, note._id)
          drop(note._id)
          return `Deleted ${quoted(note.title)} forever`
        },
        `${quoted(note.title)} was not deleted`,
      )
    } else if (question?.kind === 'empty') {
      void act(
        '',
        async () => {
          const { deleted } = await api.emptyTrash(token)
          setNotes([])
          return deleted === 1 ? 'Deleted 1 note forever' : `Deleted ${deleted.toLocaleString('en')} notes forever`
        },
        'The trash was not emptied',
      )
    }
  }

  const now = Date.now()
  let body
  if (!notes) {
    body = error ? (
      <div className="empty" role="alert">
        <p className="empty-title">The trash could not be loaded</p>
        <p>{error}</p>
        <button type="button" className="button" onClick={() => setLoads((n) => n + 1)}>
          Try again
        </button>
      </div>
    ) : (
      <p className="loading" role="status">
        Loading the trash…
      </p>
    )
  } else if (notes.length === 0) {
    body = (
      <div className="empty">
        <p className="empty-title">The trash is empty</p>
        <p>Notes you delete wait here, so you can bring them back if you change your mind.</p>
      </div>
    )
  } else {
    body = (
      <ul className="trash-list" aria-labelledby={`${ids}-heading`}>
        {notes.map((note) => {
          const title = note.title || 'Untitled'
          return (
            <li key={note._id} className="trash-item" aria-labelledby={`${ids}-${note._id}`}>
              <div className="trash-text">
                <h2 id={`${ids}-${note._id}`} className="trash-title">
                  {title}
                </h2>
                <p className="trash-excerpt">{plainText(note.content)}</p>
                <p className="trash-when">
                  Deleted{' '}
                  <time dateTime={note.deletedOn} title={new Date(note.deletedOn).toLocaleString()}>
                    {ago(note.deletedOn, now)}
                  </time>
                </p>
              </div>
              <div className="trash-actions">
                <button
                  type="button"
                  className="button"
                  disabled={busy.has(note._id)}
                  aria-label={`Restore “${title}”`}
                  onClick={() => void restore(note)}
                >
                  Restore
                </button>
                <button
                  type="button"
                  className="button ghost danger-text"
                  disabled={busy.has(note._id)}
                  aria-label={`Delete forever “${title}”`}
                  onClick={() => setAsking({ kind: 'forever', note })}
                >
                  Delete forever
                </button>
              </div>
            </li>
          )
        })}
      </ul>
    )
  }

  const count = notes?.length ?? 0
  return (
    <>
      <Header user={user} onSignOut={() => session.signOut()} />
      <main className="trash-page" id="main">
        <p className="back">
          <a
            href="/"
            onClick={(e) => {
              e.preventDefault()
              navigate('/')
            }}
          >
            ← Back to your notes
          </a>
        </p>
        <div className="trash-header">
          <h1 id={`${ids}-heading`} ref={heading} tabIndex={-1}>
            Trash
          </h1>
          {count > 0 && (
            <button
              type="button"
              className="button danger"
              disabled={busy.has('')}
              onClick={() => setAsking({ kind: 'empty' })}
            >
              Empty trash
            </button>
          )}
        </div>
        {body}
      </main>
      {asking && (
        <Confirm
          title={asking.kind === 'empty' ? 'Empty the trash?' : `Delete ${quoted(asking.note.title)} forever?`}
          confirmLabel={asking.kind === 'empty' ? 'Empty trash' : 'Delete forever'}
          onConfirm={confirmed}
          onCancel={() => setAsking(undefined)}
        >
          {asking.kind === 'empty'
            ? `${count === 1 ? 'The note' : `All ${count.toLocaleString('en')} notes`} in the trash will be deleted forever. This cannot be undone.`
            : 'It will be gone for good. This cannot be undone.'}
        </Confirm>
      )}
    </>
  )
}
