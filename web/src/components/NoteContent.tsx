// A note's Markdown, sanitised (markdown.ts) and inserted as DOM nodes, with the search's
// matches marked; and plain text with its matches marked, for titles and excerpts.
import { useLayoutEffect, useRef } from 'react'
import { highlightIn, renderMarkdown } from '../markdown'
import { matchRanges } from '../search'

export function NoteContent({ source, highlight, className }: { source: string; highlight?: RegExp | undefined; className?: string }) {
  const ref = useRef<HTMLDivElement>(null)
  useLayoutEffect(() => {
    const fragment = renderMarkdown(source)
    highlightIn(fragment, highlight)
    ref.current?.replaceChildren(fragment)
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
