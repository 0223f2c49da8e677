// A note's Markdown, sanitised (markdown.ts) and inserted as DOM nodes, with the search's
// matches marked; and plain text with its matches marked, for titles and excerpts. Marks are
// made from text ranges (highlight.ts), as elements holding text, never from HTML.
import { useLayoutEffect, useRef } from 'react'
import { MARKS_PER_CARD, type Range, segments } from '../highlight'
import { highlightIn, isRendered, renderMarkdown } from '../markdown'

interface ContentProps {
  source: string
  highlight?: RegExp | undefined
  /** The most marks to show in it (what the card's title left of the card's share). */
  maxMarks?: number
  className?: string
}

export function NoteContent({ source, highlight, maxMarks = MARKS_PER_CARD, className }: ContentProps) {
  const ref = useRef<HTMLDivElement>(null)
  useLayoutEffect(() => {
    const show = () => {
      const fragment = renderMarkdown(source)
      highlightIn(fragment, highlight, maxMarks)
      ref.current?.replaceChildren(fragment)
    }
    if (isRendered(source)) return show()
    // Markdown not rendered yet is rendered in a task of its own per note, so a row of new cards
    // scrolled into view never holds the page for the whole row's parsing and sanitising.
    const task = setTimeout(show, 0)
    return () => clearTimeout(task)
  }, [source, highlight, maxMarks])
  return <div ref={ref} className={className} />
}

/** `text` with the given ranges of it in <mark>s (from matchRanges on this very text). */
export function MarkedText({ text, ranges }: { text: string; ranges: readonly Range[] }) {
  if (ranges.length === 0) return <>{text}</>
  return (
    <>{segments(text, ranges).map((piece, i) => (piece.marked ? <mark key={i}>{piece.text}</mark> : piece.text))}</>
  )
}
