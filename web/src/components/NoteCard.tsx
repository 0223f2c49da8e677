// One note, as a card (title, rendered Markdown, tags) or as a row of the list (title and a
// one-line excerpt). A click anywhere outside its links and buttons opens it in the editor; for
// the keyboard, the title is the button that opens it.
import { type MouseEvent, memo, useId, useMemo } from 'react'
import type { Note } from '../api'
import { MARKS_PER_CARD, matchRanges } from '../highlight'
import { plainText, preview } from '../markdown'
import type { View } from '../storage'
import { HistoryIcon, PinIcon, TrashIcon } from './Icons'
import { MarkedText, NoteContent } from './NoteContent'

export interface NoteActions {
  onOpen: (note: Note) => void
  onPin: (note: Note, isPinned: boolean) => void
  onDelete: (note: Note) => void
  onHistory: (note: Note) => void
  onTag: (tag: string) => void
}

interface Props extends NoteActions {
  note: Note
  view: View
  highlight: RegExp | undefined
}

export const NoteCard = memo(function NoteCard({
  note,
  view,
  highlight,
  onOpen,
  onPin,
  onDelete,
  onHistory,
  onTag,
}: Props) {
  const titleId = useId()
  const title = note.title || 'Untitled'
  // The title's marks first, then the content's, MARKS_PER_CARD in all.
  const titleMarks = useMemo(() => matchRanges(title, highlight), [title, highlight])
  const contentMarks = MARKS_PER_CARD - titleMarks.length
  const excerpt = view === 'list' ? plainText(note.content) : ''
  const excerptMarks = useMemo(() => matchRanges(excerpt, highlight, contentMarks), [excerpt, highlight, contentMarks])
  const openFromCard = (event: MouseEvent) => {
    if ((event.target as Element).closest('a, button')) return
    onOpen(note)
  }
  return (
    <article
      className={`note ${view === 'list' ? 'note-row' : 'note-card'}${note.isPinned ? ' pinned' : ''}`}
      aria-labelledby={titleId}
      data-note-id={note._id}
      onClick={openFromCard}
    >
      <h3 className="note-title" id={titleId}>
        <button type="button" className="note-open" onClick={() => onOpen(note)}>
          <MarkedText text={title} ranges={titleMarks} />
        </button>
      </h3>
      {view === 'list' ? (
        <p className="note-excerpt">
          <MarkedText text={excerpt} ranges={excerptMarks} />
        </p>
      ) : (
        <NoteContent
          className="note-body markdown"
          source={preview(note.content)}
          highlight={highlight}
          maxMarks={contentMarks}
        />
      )}
      <div className="note-footer">
        {note.tags.length > 0 && (
          <ul className="tags" aria-label="Tags">
            {note.tags.map((tag) => (
              <li key={tag}>
                <button type="button" className="tag" onClick={() => onTag(tag)} title={`Show notes tagged ${tag}`}>
                  {tag}
                </button>
              </li>
            ))}
          </ul>
        )}
        <div className="note-actions">
          <button
            type="button"
            className="icon-button pin-button"
            aria-pressed={note.isPinned}
            aria-label={`Pin “${title}”`}
            title={note.isPinned ? 'Unpin' : 'Pin'}
            onClick={() => onPin(note, !note.isPinned)}
          >
            <PinIcon filled={note.isPinned} />
          </button>
          <button
            type="button"
            className="icon-button"
            aria-label={`History of “${title}”`}
            title="History"
            onClick={() => onHistory(note)}
          >
            <HistoryIcon />
          </button>
          <button
            type="button"
            className="icon-button"
            aria-label={`Delete “${title}”`}
            title="Move to trash"
            onClick={() => onDelete(note)}
          >
            <TrashIcon />
          </button>
        </div>
      </div>
    </article>
  )
})
