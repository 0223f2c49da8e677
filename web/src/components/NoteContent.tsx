// A note's Markdown, sanitised (markdown.ts) and inserted as DOM nodes, with the search's
// matches marked; and plain text with its matches marked, for titles and excerpts. Marks are
// made from text ranges (highlight.ts), as elements holding text, never from HTML. A note that
// links to attachments has them shown by the attachments' chunk, loaded then (attachments/show.ts).
import { useLayoutEffect, useRef } from 'react'
import type { ThumbnailWidth } from '../attachments/urls'
import { MARKS_PER_CARD, type Range, segments } from '../highlight'
import { highlightIn, isRendered, renderMarkdown } from '../markdown'
import { useSession } from '../session'

interface ContentProps {
  source: string
  highlight?: RegExp | undefined
  /** The most marks to show in it (what the card's title left of the card's share). */
  maxMarks?: number
  className?: string
  /** The width of the thumbnails its pictures show at. */
  pictureWidth?: ThumbnailWidth
}

export function NoteContent({
  source,
  highlight,
  maxMarks = MARKS_PER_CARD,
  className,
  pictureWidth = 256,
}: ContentProps) {
  const ref = useRef<HTMLDivElement>(null)
  const { state } = useSession()
  const token = state.status === 'signed-in' ? state.token : undefined
  const userId = state.status === 'signed-in' ? state.user._id : undefined
  useLayoutEffect(() => {
    let gone = false
    let letGo: (() => void) | undefined
    const show = () => {
      const element = ref.current
      if (!element) return
      const fragment = renderMarkdown(source)
      highlightIn(fragment, highlight, maxMarks)
      element.replaceChildren(fragment)
      if (!token || !userId || !element.querySelector('[data-attachment]')) return
      import('../attachments/show').then(
        ({ showAttachments }) => {
          if (!gone) letGo = showAttachments(element, { token, userId }, pictureWidth)
        },
        () => undefined, // the chunk cannot be fetched: the slots keep their labels
      )
    }
    // Markdown not rendered yet is rendered in a task of its own per note, so a row of new cards
    // scrolled into view never holds the page for the whole row's parsing and sanitising.
    const task = isRendered(source) ? (show(), undefined) : setTimeout(show, 0)
    return () => {
      gone = true
      clearTimeout(task)
      letGo?.()
    }
  }, [source, highlight, maxMarks, token, userId, pictureWidth])
  return <div ref={ref} className={className} />
}

/** `text` with the given ranges of it in <mark>s (from matchRanges on this very text). */
export function MarkedText({ text, ranges }: { text: string; ranges: readonly Range[] }) {
  if (ranges.length === 0) return <>{text}</>
  return (
    <>{segments(text, ranges).map((piece, i) => (piece.marked ? <mark key={i}>{piece.text}</mark> : piece.text))}</>
  )
}
