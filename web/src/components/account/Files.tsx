// The account's files (GET /get-attachments): each with its type, size, date and how many notes
// link to it, the storage used against the account's limit, and Delete (DELETE
// /delete-attachment/:id), asked first in a dialog that names the notes still linking to the file,
// since they will show it as missing. The notes' titles are read only then, from the listing and
// the trash (a note linking to it only in a kept version is in one of them).
import { useEffect, useId, useRef, useState } from 'react'
import { type AttachmentUsage, type ListedAttachment, accountApi } from '../../account-api'
import { SessionEndedError, api, messageOf } from '../../api'
import { acquire, forget } from '../../attachments/files'
import { describeType, formatBytes } from '../../attachments/format'
import { isPicture } from '../../attachments/urls'
import { useSession, useSignedIn } from '../../session'
import { Confirm } from '../trash/Confirm'
import { Outcome } from './Outcome'
import { useAction } from './use-action'

const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' })

export const usageText = ({ bytes, limit }: AttachmentUsage) =>
  limit > 0 ? `${formatBytes(bytes)} of ${formatBytes(limit)} used` : `${formatBytes(bytes)} used`

const quoted = (titles: string[]) =>
  titles.length <= 1
    ? titles.map((t) => `“${t}”`).join('')
    : `${titles
        .slice(0, -1)
        .map((t) => `“${t}”`)
        .join(', ')} and “${titles.at(-1)!}”`

const linkedText = (n: number) =>
  n === 0 ? 'Not linked from any note' : n === 1 ? 'Linked from 1 note' : `Linked from ${n} notes`

/** What the delete's dialog says: the notes still linking to the file, named when their titles are known. */
export function deleteQuestion(linked: number, titles: string[]): string {
  if (linked === 0) return 'No note links to this file. It is deleted for good.'
  const count = linked === 1 ? '1 note links' : `${linked} notes link`
  const named = titles.length === linked ? `: ${quoted(titles)}. They` : '; they'
  return `${count} to this file${named} will show it as missing. It is deleted for good.`
}

/** A picture no larger than this shows whole where the server makes no thumbnail of it. */
const SMALL_PICTURE = 1024 * 1024

/** A picture's smallest thumbnail (or the picture, when small); its type's short name otherwise. */
function Thumb({ file }: { file: ListedAttachment }) {
  const { token, user } = useSignedIn()
  const [src, setSrc] = useState<string>()
  const picture = isPicture(file.type)
  useEffect(() => {
    if (!picture) return
    let live = true
    const whole = file.size <= SMALL_PICTURE
    const held = acquire({ token, userId: user._id }, file._id, file.name, 'image', 64, whole)
    void held.shown.then((shown) => live && shown.kind === 'picture' && setSrc(shown.src))
    return () => {
      live = false
      held.release()
    }
  }, [picture, token, user._id, file._id, file.name, file.size])
  if (src) return <img className="file-thumb" src={src} alt="" />
  return (
    <span className="file-thumb" aria-hidden="true">
      {picture ? 'IMG' : (describeType(file.type).split(' ')[0] ?? 'FILE').slice(0, 4)}
    </span>
  )
}

export function Files() {
  const { ended } = useSession()
  const { token, user } = useSignedIn()
  const [files, setFiles] = useState<ListedAttachment[]>()
  const [usage, setUsage] = useState<AttachmentUsage>()
  const [loadError, setLoadError] = useState<string>()
  const [attempt, setAttempt] = useState(0)
  const [asking, setAsking] = useState<{ file: ListedAttachment; question: string }>()
  const action = useAction()
  const heading = useRef<HTMLHeadingElement>(null)
  const headingId = useId()

  useEffect(() => {
    let live = true
    setLoadError(undefined)
    accountApi.attachments(token).then(
      (answer) => {
        if (!live) return
        setFiles(answer.attachments)
        setUsage(answer.usage)
      },
      (err: unknown) => {
        if (!live) return
        if (err instanceof SessionEndedError) ended()
        else setLoadError(messageOf(err))
      },
    )
    return () => {
      live = false
    }
  }, [token, attempt, ended])

  function ask(file: ListedAttachment) {
    void action.run(async () => {
      let titles: string[] = []
      if (file.notes.length > 0) {
        const [listed, trashed] = await Promise.all([api.allNotes(token), api.getTrash(token)])
        const byId = new Map([...trashed.notes, ...listed.notes].map((note) => [note._id, note.title || 'Untitled']))
        titles = file.notes.flatMap((id) => byId.get(id) ?? [])
      }
      setAsking({ file, question: deleteQuestion(file.notes.length, titles) })
      return undefined
    })
  }

  function remove(file: ListedAttachment) {
    setAsking(undefined)
    void action.run(async () => {
      await accountApi.deleteAttachment(token, file._id)
      await forget({ token, userId: user._id }, file._id)
      setFiles((list) => list?.filter((f) => f._id !== file._id))
      setUsage((used) => used && { ...used, bytes: Math.max(0, used.bytes - file.size) })
      // The button is gone with its row: the list's heading takes the focus.
      heading.current?.focus()
      return `Deleted “${file.name}”.`
    })
  }

  return (
    <section className="panel" aria-labelledby={headingId}>
      <div className="panel-header">
        <h2 id={headingId} ref={heading} tabIndex={-1}>
          Files
        </h2>
        {usage && <p className="usage">{usageText(usage)}</p>}
      </div>
      {usage && usage.limit > 0 && (
        <div className="usage-bar" aria-hidden="true">
          {/* Some bytes used show as a sliver at least, none as none. */}
          <span
            style={{
              width: `${Math.min(100, Math.max(usage.bytes > 0 ? 0.5 : 0, (usage.bytes / usage.limit) * 100))}%`,
            }}
          />
        </div>
      )}
      <p className="panel-hint">
        Files you paste, drop or attach in your notes. A note that links to a file you delete shows it as missing.
      </p>
      {loadError ? (
        <div className="form-error" role="alert">
          <span>{loadError}</span>{' '}
          <button type="button" className="button" onClick={() => setAttempt((n) => n + 1)}>
            Try again
          </button>
        </div>
      ) : !files ? (
        <p className="panel-hint" role="status">
          Loading files…
        </p>
      ) : files.length === 0 ? (
        <p className="files-empty">No files yet. Paste or drop a picture or a file into a note to attach it.</p>
      ) : (
        <ul className="files" aria-label="Files">
          {files.map((file) => (
            <li key={file._id} className="file">
              <Thumb file={file} />
              <div className="file-about">
                <p className="file-name">{file.name}</p>
                <p className="file-facts">
                  {describeType(file.type)} · {formatBytes(file.size)} · {dateOnly.format(new Date(file.createdOn))}
                </p>
                <p className="file-facts">{linkedText(file.notes.length)}</p>
              </div>
              <button
                type="button"
                className="button"
                aria-label={`Delete ${file.name}`}
                onClick={() => ask(file)}
                disabled={action.busy}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      <Outcome action={action} />
      {asking && (
        <Confirm
          title={`Delete “${asking.file.name}”?`}
          confirmLabel="Delete file"
          onConfirm={() => remove(asking.file)}
          onCancel={() => setAsking(undefined)}
        >
          {asking.question}
        </Confirm>
      )}
    </section>
  )
}
