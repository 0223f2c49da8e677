// A note's Markdown, sanitised (markdown.ts) and inserted as DOM nodes, with the search's
// matches marked; and plain text with its matches marked, for titles and excerpts.
import { useLayoutEffect, useRef } from 'react'
import { highlightIn, isRendered, renderMarkdown } from '../markdown'
import { matchRanges } from '../search'

export function NoteContent({ source, highlight, className }: { source: string; highlight?: RegExp | undefined; className?: string }) {
  const ref = useRef<HTMLDivElement>(null)
  useLayoutEffect(() => {
    const show = () => {
      const fragment = renderMarkdown(source)
      highlightIn(fragment, highlight)
      ref.current?.replaceChildren(fragment)
    }
    if (isRendered(source)) return show()
    // Markdown not rendered yet is rendered in a task of its own per note, so a row of new cards
    // scrolled into view never holds the page for the whole row's parsing and sanitising.
    const task = setTimeout(show, 0)
    return () => clearTimeout(task)
  }, [source, highlight])
  return <div ref={ref} className={className} />
}

export function HighlightedText({ text, highlight }: { text: string; highlight?: RegExp | undefined }) {
  const ranges = matchRanges(text, highlight)
  if (ranges.length === 0) return <>{text}</>
  const parts = []
  let at = 0
  for (const { start, end } of ranges) {
    if (start > at) parts.push(text.slice(at, start))
    parts.push(<mark key={start}>{text.slice(start, end)}</mark>)
    at = end
  }
  if (at < text.length) parts.push(text.slice(at))
  return <>{parts}</>
}
