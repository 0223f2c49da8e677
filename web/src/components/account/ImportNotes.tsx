// "Import notes" on the account page: a file chosen or dropped onto the drop zone goes to POST
// /import-notes at once; a progress bar follows its upload, then the items the server has read
// (the streamed counts), then the summary: what was imported, what was already there, and the
// items skipped with their reasons; or the API's message. Importing the same file again adds only
// what is missing, so nothing asks first. Offline, the section says it needs a connection.
import { type DragEvent, useId, useRef, useState } from 'react'
import { SessionEndedError, messageOf } from '../../api'
import type { ImportCounts, ImportSummary } from '../../import-lines'
import { ImportStoppedError, importNotes } from '../../import-request'
import { useSession, useSignedIn } from '../../session'
import { IMPORT_ACCEPT, IMPORT_SOURCES, OFFLINE_IMPORT, importingText, keptText, uploadText } from './import-wording'
import { ImportResult } from './ImportResult'
import { useOnline } from './use-online'

type Stage =
  | { kind: 'idle' }
  | { kind: 'uploading'; name: string; sent: number; total: number }
  | { kind: 'importing'; name: string; counts?: ImportCounts }
  | { kind: 'done'; name: string; summary: ImportSummary }
  | { kind: 'failed'; message: string; detail?: string }

function Progress({ stage }: { stage: Stage }) {
  if (stage.kind === 'uploading') {
    const label = uploadText(stage.name, stage.sent, stage.total)
    return (
      <div className="import-progress">
        <progress max={stage.total || 1} value={stage.total ? stage.sent : 0} aria-label={`Uploading ${stage.name}`} />
        <p>{label}</p>
      </div>
    )
  }
  if (stage.kind === 'importing') {
    return (
      <div className="import-progress">
        {/* How many items the file holds is known only at the end: the bar moves without a value. */}
        <progress aria-label={`Importing ${stage.name}`} />
        <p>{importingText(stage.name, stage.counts)}</p>
      </div>
    )
  }
  return null
}

export function ImportNotes() {
  const { ended } = useSession()
  const { token } = useSignedIn()
  const online = useOnline()
  const [stage, setStage] = useState<Stage>({ kind: 'idle' })
  const [dragging, setDragging] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  const headingId = useId()
  const sourcesId = useId()
  const busy = stage.kind === 'uploading' || stage.kind === 'importing'

  function start(files: FileList | null | undefined) {
    const file = files?.[0]
    if (!file || busy) return
    if (files.length > 1) {
      setStage({ kind: 'failed', message: 'Drop one file at a time: a folder goes as a .zip.' })
      return
    }
    if (!navigator.onLine) {
      setStage({ kind: 'failed', message: OFFLINE_IMPORT })
      return
    }
    const name = file.name
    let last: ImportCounts | undefined
    setStage({ kind: 'uploading', name, sent: 0, total: file.size })
    importNotes(token, file, {
      uploaded: (sent, total) =>
        setStage((now) =>
          now.kind !== 'uploading'
            ? now
            : total > 0 && sent >= total
              ? { kind: 'importing', name }
              : { kind: 'uploading', name, sent, total },
        ),
      progressed: (counts) => {
        last = counts
        setStage((now) => (now.kind === 'done' ? now : { kind: 'importing', name, counts }))
      },
    }).then(
      (summary) => setStage({ kind: 'done', name, summary }),
      (err: unknown) => {
        if (err instanceof SessionEndedError) return ended()
        const message = messageOf(err)
        if (!(err instanceof ImportStoppedError))
          return setStage({ kind: 'failed', message: `“${name}” was not imported: ${message}` })
        setStage({ kind: 'failed', message: `The import of “${name}” stopped: ${message}`, detail: keptText(last) })
      },
    )
    // The same file chosen again is a change too.
    if (input.current) input.current.value = ''
  }

  function dragOver(event: DragEvent) {
    if (!event.dataTransfer.types.includes('Files')) return
    event.preventDefault()
    event.dataTransfer.dropEffect = busy || !online ? 'none' : 'copy'
    setDragging(true)
  }

  function dragLeave(event: DragEvent) {
    if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false)
  }

  function drop(event: DragEvent) {
    event.preventDefault()
    setDragging(false)
    start(event.dataTransfer.files)
  }

  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>Import notes</h2>
      <p className="panel-hint" id={sourcesId}>
        Bring your notes from another app, or from an export of this one. Importing the same file again adds only the
        notes not yet here.
      </p>
      <ul className="import-sources" aria-label="What you can import">
        {IMPORT_SOURCES.map(([source, file]) => (
          <li key={source}>
            <strong>{source}</strong>: {file}
          </li>
        ))}
      </ul>
      {online ? (
        <div
          className={dragging ? 'drop-zone dragging' : 'drop-zone'}
          onDragOver={dragOver}
          onDragEnter={dragOver}
          onDragLeave={dragLeave}
          onDrop={drop}
        >
          <p>Drop a file here, or</p>
          <button
            type="button"
            className="button"
            disabled={busy}
            aria-describedby={sourcesId}
            onClick={() => input.current?.click()}
          >
            Choose a file…
          </button>
          <input
            ref={input}
            type="file"
            accept={IMPORT_ACCEPT}
            hidden
            aria-label="File to import"
            onChange={(event) => start(event.target.files)}
          />
        </div>
      ) : (
        <p className="notice warn" role="status">
          {OFFLINE_IMPORT}
        </p>
      )}
      <div aria-live="polite">
        <Progress stage={stage} />
        {stage.kind === 'done' && <ImportResult name={stage.name} summary={stage.summary} />}
      </div>
      {stage.kind === 'failed' && (
        <div className="form-error import-failed" role="alert">
          <p>{stage.message}</p>
          {stage.detail && <p className="import-failed-detail">{stage.detail}</p>}
        </div>
      )}
    </section>
  )
}
