// The editor's session on the notes page: which note is open (or a new one, or a draft kept when
// the session ended, which comes back once the notes are here), the conflict from the outbox it
// shows, and what saving, keeping both, closing and a restored revision do.
import { type Dispatch, type RefObject, type SetStateAction, useCallback, useEffect, useRef } from 'react'
import type { Note, NoteFields } from '../../api'
import type { HeldConflict, NotesState } from '../../notes-state'
import { takeDraft } from '../../storage'
import type { EditorTarget } from '../NoteEditor'
import { useToasts } from '../Toasts'

const targetOf = (note: Note): EditorTarget => ({
  noteId: note._id,
  version: note.updatedOn,
  title: note.title,
  content: note.content,
  tags: note.tags,
})

export interface EditorSession {
  /** What the editor shows; undefined while it is closed. */
  target: EditorTarget | undefined
  open: (note: Note) => void
  openNew: () => void
  /** A conflict from the outbox that the open editor shows: whatever the person does next settles it. */
  heldConflict: HeldConflict | undefined
  save: (fields: NoteFields, version: string | undefined) => Promise<void>
  saveAsNew: (fields: NoteFields) => Promise<void>
  close: () => void
  /** A revision restored: the lists show it, and an editor of the note without changes does too. */
  restored: (note: Note) => void
  /** Whether the editor holds unsaved changes, kept up to date by the editor. */
  dirty: RefObject<boolean>
}

/** `editing` is the page's state, since the notes' hook (which this one uses) needs it first. */
export function useEditorSession(
  notes: NotesState,
  userId: string,
  [editing, setEditing]: [EditorTarget | undefined, Dispatch<SetStateAction<EditorTarget | undefined>>],
): EditorSession {
  const toasts = useToasts()
  const dirty = useRef(false)

  // A draft kept when the session ended comes back once the notes are here.
  const loaded = notes.all !== undefined
  const allRef = useRef(notes.all)
  allRef.current = notes.all
  useEffect(() => {
    if (!loaded) return
    const draft = takeDraft(userId)
    if (!draft) return
    const exists = allRef.current?.some((n) => n._id === draft.noteId)
    setEditing({
      title: draft.title,
      content: draft.content,
      tags: draft.tags,
      noteId: exists ? draft.noteId : undefined,
      version: draft.version,
      restored: true,
    })
  }, [loaded, userId, setEditing])

  const open = useCallback((note: Note) => setEditing(targetOf(note)), [setEditing])
  const openNew = useCallback(() => setEditing({ title: '', content: '', tags: [] }), [setEditing])

  const heldConflict = notes.conflict && notes.conflict.noteId === editing?.noteId ? notes.conflict : undefined
  function settleHeld() {
    if (heldConflict) notes.release(heldConflict.seq)
  }

  /** What a save says: offline, the change waits on this device. */
  const savedMessage = (done: string) =>
    notes.sync && !notes.sync.online ? `${done} on this device; it is sent when you are back online` : done

  return {
    target: editing,
    open,
    openNew,
    heldConflict,
    async save(fields, version) {
      settleHeld()
      const target = editing
      // A note opened without a version (a draft kept from before) is edited on the one shown now.
      const shown = notes.all?.find((n) => n._id === target?.noteId)?.updatedOn
      if (target?.noteId) await notes.edit(target.noteId, fields, version ?? shown ?? '')
      else await notes.create(fields)
      setEditing(undefined)
      toasts.show({ message: savedMessage(target?.noteId ? 'Note saved' : 'Note added') })
    },
    async saveAsNew(fields) {
      settleHeld()
      await notes.create(fields)
      setEditing(undefined)
      toasts.show({ message: 'Your version was added as a new note' })
    },
    close() {
      settleHeld()
      setEditing(undefined)
    },
    restored(note) {
      notes.changed(note)
      if (editing?.noteId === note._id && !dirty.current) setEditing(targetOf(note))
    },
    dirty,
  }
}
