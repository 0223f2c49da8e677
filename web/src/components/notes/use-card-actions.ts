// What a card's buttons do, and the toasts that say how it went: a delete moves the note to the
// trash with an Undo for a few seconds; every failure is shown, unless the session ended (the
// sign-in page says so). A 412 changed nothing: the note already shows as it is now.
import { useCallback, useMemo, useRef } from 'react'
import { ApiError, ConflictError, type Note, messageOf } from '../../api'
import type { NotesState } from '../../notes-state'
import type { NoteActions } from '../NoteCard'
import { useToasts } from '../Toasts'
import { quoted } from './quoted'

const UNDO_MS = 6000

interface Opens {
  /** Opens the note in the editor. */
  open: (note: Note) => void
  /** Filters the notes by the tag. */
  filter: (tag: string) => void
  /** Opens the note's history. */
  showHistory: (noteId: string) => void
}

export function useCardActions(notes: NotesState, { open, filter, showHistory }: Opens): NoteActions {
  const toasts = useToasts()
  const notesRef = useRef(notes)
  notesRef.current = notes

  /** A failure of a change to `note` ("pin", "pinned"). */
  const failed = useCallback(
    (note: Note, [verb, done]: [string, string], err: unknown) => {
      if (err instanceof ApiError && err.status === 401) return
      const message =
        err instanceof ConflictError
          ? `${quoted(note.title)} was changed elsewhere, so it was not ${done}. It shows the latest version now.`
          : `Could not ${verb} ${quoted(note.title)}: ${messageOf(err)}`
      toasts.show({ kind: 'error', message })
    },
    [toasts],
  )

  return useMemo(
    () => ({
      onOpen: open,
      onTag: filter,
      onPin: (note: Note, isPinned: boolean) => {
        notesRef.current
          .setPinned(note, isPinned)
          .catch((err: unknown) => failed(note, isPinned ? ['pin', 'pinned'] : ['unpin', 'unpinned'], err))
      },
      onDelete: (note: Note) => {
        notesRef.current.remove(note).then(
          () =>
            toasts.show({
              message: 'Note moved to trash',
              timeoutMs: UNDO_MS,
              action: {
                label: 'Undo',
                run: () =>
                  void notesRef.current
                    .restore(note._id)
                    .catch((err: unknown) => failed(note, ['restore', 'restored'], err)),
              },
            }),
          (err: unknown) => failed(note, ['delete', 'deleted'], err),
        )
      },
      onHistory: (note: Note) => showHistory(note._id),
    }),
    [toasts, failed, open, filter, showHistory],
  )
}
