// The editor: a modal <dialog> (the browser keeps focus inside it and gives Esc), with the title,
// the Markdown content (and its preview) and the tags. Ctrl/Cmd+Enter saves; Esc closes, and asks
// once more first when there are unsaved changes. A failure stays on screen in the API's words.
// When the note changed elsewhere since it was opened (a 412), both versions show side by side
// and the person chooses: nothing they typed is dropped without their say. A file pasted, dropped
// or attached is uploaded and linked at the cursor (editor/use-uploads.ts); saving waits for it.
import { type FormEvent, type KeyboardEvent, type RefObject, useEffect, useId, useRef, useState } from 'react'
import { ConflictError, type Note, type NoteFields, messageOf } from '../api'
import { useSession } from '../session'
import { Conflict } from './Conflict'
import { AttachButton, UploadList } from './editor/Uploads'
import { useUploads } from './editor/use-uploads'
import { CloseIcon, HistoryIcon } from './Icons'
import { NoteContent } from './NoteContent'
import { TagInput } from './TagInput'

export interface EditorTarget extends NoteFields {
  /** The note being edited; absent for a new note. */
  noteId?: string | undefined
  /** The note's updatedOn when editing started: the version an edit is made on. */
  version?: string | undefined
  /** Restored after the session ended while it was open. */
  restored?: boolean
}

interface Props {
  target: EditorTarget
  knownTags: string[]
  /** Adds or edits; an edit is made on `version` and may reject with a ConflictError. */
  onSave: (fields: NoteFields, version: string | undefined) => Promise<void>
  /** Adds the fields as a new note and closes ("Keep both"). */
  onSaveAsNew: (fields: NoteFields) => Promise<void>
  onClose: () => void
  onHistory?: (() => void) | undefined
  /** Kept up to date with whether the editor holds unsaved changes. */
  dirtyRef?: RefObject<boolean>
  /** The note as saved elsewhere, when a change of it sent from this device's outbox met it. */
  conflict?: Note | undefined
}

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform)

export function NoteEditor({ target, knownTags, onSave, onSaveAsNew, onClose, onHistory, dirtyRef, conflict }: Props) {
  const dialog = useRef<HTMLDialogElement>(null)
  const titleField = useRef<HTMLTextAreaElement>(null)
  const contentField = useRef<HTMLTextAreaElement>(null)
  const [title, setTitle] = useState(target.title)
  const [content, setContent] = useState(target.content)
  const [tags, setTags] = useState(target.tags)
  const [preview, setPreview] = useState(false)
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  const [dropping, setDropping] = useState(false)
  const [confirmingClose, setConfirmingClose] = useState(false)
  const [version, setVersion] = useState(target.version)
  /** The note as saved elsewhere, while the person chooses between it and theirs. */
  const [theirs, setTheirs] = useState<Note>()
  const session = useSession()
  const ids = useId()
  const { attach, ...uploads } = useUploads(content, setContent, contentField)
  const uploading = uploads.uploads.length > 0
  const isNew = !target.noteId
  const dirty =
    title !== target.title ||
    content !== target.content ||
    tags.join('\u0000') !== target.tags.join('\u0000') ||
    Boolean(target.restored)
  if (dirtyRef) dirtyRef.current = dirty

  // What a 401 keeps (session.tsx), always the latest.
  const latest = useRef({ title, content, tags })
  latest.current = { title, content, tags }
  useEffect(() => {
    session.setDraftSource(() => ({
      ...latest.current,
      ...(target.noteId ? { noteId: target.noteId } : {}),
      ...(version ? { version } : {}),
    }))
    return () => session.setDraftSource(undefined)
  }, [session, target.noteId, version])

  // The text typed here stays; the choice shows both.
  useEffect(() => {
    if (conflict) setTheirs(conflict)
  }, [conflict])

  useEffect(() => {
    const element = dialog.current
    if (element && !element.open) element.showModal()
    titleField.current?.focus()
    return () => element?.close()
  }, [])

  async function attempt(work: () => Promise<void>) {
    setBusy(true)
    setError(undefined)
    try {
      await work()
    } catch (err) {
      if (err instanceof ConflictError) setTheirs(err.note)
      setError(err instanceof ConflictError ? undefined : messageOf(err))
      setBusy(false)
    }
  }

  function save(event?: FormEvent) {
    event?.preventDefault()
    if (busy || theirs || uploading) return
    // edit-note leaves a field unchanged when it is sent empty (docs/contract.md,
    // "PUT /edit-note/:noteId"): say so instead, in the words add-note uses.
    if (!isNew && !title) return setError('Title is required')
    if (!isNew && !content) return setError('content is required')
    void attempt(() => onSave({ title, content, tags }, version))
  }

  const choices = theirs && {
    keepMine() {
      setVersion(theirs.updatedOn)
      setTheirs(undefined)
      void attempt(() => onSave({ title, content, tags }, theirs.updatedOn))
    },
    keepTheirs: onClose,
    keepBoth() {
      void attempt(() => onSaveAsNew({ title, content, tags }))
    },
  }

  function requestClose() {
    if (dirty && !confirmingClose) setConfirmingClose(true)
    else onClose()
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault()
      save()
    }
  }

  return (
    <dialog
      ref={dialog}
      className="editor"
      aria-labelledby={`${ids}-heading`}
      onCancel={(e) => {
        e.preventDefault()
        requestClose()
      }}
      onKeyDown={onKeyDown}
      // A file dropped anywhere on the editor is attached (and never opened by the browser in place of the app).
      onDragOver={(e) => {
        if (!e.dataTransfer.types.includes('Files') || theirs) return
        e.preventDefault()
        e.dataTransfer.dropEffect = 'copy'
        setDropping(true)
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDropping(false)
      }}
      onDrop={(e) => {
        setDropping(false)
        if (!e.dataTransfer.types.includes('Files')) return
        e.preventDefault()
        if (!theirs) attach(Array.from(e.dataTransfer.files))
      }}
    >
      <form method="post" noValidate onSubmit={(e) => save(e)}>
        <header className="editor-header">
          <h2 id={`${ids}-heading`}>{isNew ? 'New note' : 'Edit note'}</h2>
          {onHistory && !isNew && (
            <button type="button" className="button ghost small" onClick={onHistory}>
              <HistoryIcon /> History
            </button>
          )}
          <button type="button" className="icon-button" aria-label="Close" title="Close (Esc)" onClick={requestClose}>
            <CloseIcon />
          </button>
        </header>
        {target.restored && (
          <p className="notice" role="status">
            This is what you were writing. It is not saved yet.
          </p>
        )}
        {theirs && choices && <Conflict mine={{ title, content, tags }} theirs={theirs} busy={busy} {...choices} />}
        <div hidden={Boolean(theirs)}>
          <label className="field">
            <span>Title</span>
            {/* A textarea, so a long title wraps and shows whole; it stays one line of text: Enter
                saves, as in a one-line field, and pasted line breaks become spaces. */}
            <textarea
              ref={titleField}
              name="title"
              className="title-field"
              rows={1}
              value={title}
              onChange={(e) => setTitle(e.target.value.replace(/[\r\n]+/g, ' '))}
              onKeyDown={(e) => {
                if (e.key !== 'Enter' || e.ctrlKey || e.metaKey || e.nativeEvent.isComposing) return
                e.preventDefault()
                e.currentTarget.form?.requestSubmit()
              }}
              autoComplete="off"
            />
          </label>
          <div className="field">
            <div className="field-label-row">
              <label htmlFor={`${ids}-content`}>Content</label>
              <AttachButton attach={attach} />
              <div className="segmented small" role="group" aria-label="Content view">
                <button type="button" aria-pressed={!preview} onClick={() => setPreview(false)}>
                  Write
                </button>
                <button type="button" aria-pressed={preview} onClick={() => setPreview(true)}>
                  Preview
                </button>
              </div>
            </div>
            {preview ? (
              <NoteContent
                className="preview markdown"
                source={content || '*Nothing to preview.*'}
                pictureWidth={1024}
              />
            ) : (
              <textarea
                ref={contentField}
                id={`${ids}-content`}
                name="content"
                className={dropping ? 'dropping' : undefined}
                value={content}
                onChange={(e) => setContent(e.target.value)}
                onPaste={(e) => {
                  // Text with a picture of it beside (cells copied from a spreadsheet) pastes as the text.
                  const files = Array.from(e.clipboardData.files)
                  if (files.length === 0 || e.clipboardData.getData('text/plain')) return
                  e.preventDefault()
                  attach(files)
                }}
                rows={10}
                placeholder="Markdown: **bold**, _italic_, - lists, [links](https://…); paste or drop files"
              />
            )}
            <UploadList {...uploads} />
          </div>
          <div className="field">
            <span className="label">Tags</span>
            <TagInput tags={tags} onChange={setTags} known={knownTags} />
          </div>
        </div>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        {confirmingClose && (
          <p className="notice warn" role="alert">
            You have unsaved changes. Press Esc again to discard them, or save.
          </p>
        )}
        {!theirs && (
          <footer className="editor-footer">
            <span className="hint">{isMac ? '⌘' : 'Ctrl'}+Enter saves · Esc closes</span>
            <button type="button" className="button" onClick={requestClose}>
              {confirmingClose ? 'Discard' : 'Cancel'}
            </button>
            <button type="submit" className="button primary" disabled={busy || uploading}>
              {busy ? 'Saving…' : uploading ? 'Uploading…' : 'Save'}
            </button>
          </footer>
        )}
      </form>
    </dialog>
  )
}
