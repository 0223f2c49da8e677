// The notes on screen, however many there are: only the rows in and near the viewport exist in
// the DOM (@tanstack/react-virtual over the window's scroll), so 10 000 notes scroll as 20 do.
// Cards have one fixed height and the grid as many columns as fit; the list has one fixed row
// height. Pinned notes come first under their own heading, as the API orders them.
import { useWindowVirtualizer } from '@tanstack/react-virtual'
import { type RefObject, useLayoutEffect, useMemo, useRef, useState } from 'react'
import type { Note } from '../api'
import type { View } from '../storage'
import { type NoteActions, NoteCard } from './NoteCard'

const CARD_MIN_WIDTH = 232
const GAP = 14
const CARD_ROW = 206 + GAP
const LIST_ROW = 74 + 8
const HEADING_ROW = 40

type Row = { kind: 'heading'; label: string; key: string } | { kind: 'notes'; notes: Note[]; key: string }

function rowsOf(notes: Note[], columns: number): Row[] {
  const rows: Row[] = []
  const pinnedCount = notes.findIndex((n) => !n.isPinned)
  const split = pinnedCount === -1 ? notes.length : pinnedCount
  const groups: Array<[string, Note[]]> =
    split > 0 && split < notes.length
      ? [
          ['Pinned', notes.slice(0, split)],
          ['Others', notes.slice(split)],
        ]
      : [['', notes]]
  for (const [label, group] of groups) {
    if (label) rows.push({ kind: 'heading', label, key: `h-${label}` })
    for (let i = 0; i < group.length; i += columns) {
      const slice = group.slice(i, i + columns)
      rows.push({ kind: 'notes', notes: slice, key: slice[0]!._id })
    }
  }
  return rows
}

/** The element's width and its distance from the top of the document, kept up to date. */
function useBox(ref: RefObject<HTMLElement | null>): { width: number; top: number } {
  const [box, setBox] = useState({ width: 0, top: 0 })
  useLayoutEffect(() => {
    const element = ref.current
    if (!element) return
    const measure = () => {
      const rect = element.getBoundingClientRect()
      const next = { width: Math.round(rect.width), top: Math.round(rect.top + window.scrollY) }
      setBox((b) => (b.width === next.width && b.top === next.top ? b : next))
    }
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(element)
    observer.observe(document.body)
    return () => observer.disconnect()
  }, [ref])
  return box
}

interface Props extends NoteActions {
  notes: Note[]
  view: View
  highlight: RegExp | undefined
}

export function NoteGrid({ notes, view, highlight, ...actions }: Props) {
  const container = useRef<HTMLDivElement>(null)
  const { width, top } = useBox(container)
  const columns = view === 'list' ? 1 : Math.max(1, Math.floor((width + GAP) / (CARD_MIN_WIDTH + GAP)))
  const rows = useMemo(() => rowsOf(notes, columns), [notes, columns])
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: (i) => (rows[i]?.kind === 'heading' ? HEADING_ROW : view === 'list' ? LIST_ROW : CARD_ROW),
    getItemKey: (i) => rows[i]?.key ?? i,
    overscan: 3,
    scrollMargin: top,
    // Rows render in React's own time, not synchronously inside each scroll event: fewer and
    // shorter long tasks while scrolling fast (bench/web-app.ts).
    useFlushSync: false,
  })
  // Sizes are fixed per kind of row; a change of view or columns changes them all.
  useLayoutEffect(() => virtualizer.measure(), [virtualizer, view, columns])

  return (
    <div ref={container} className={`note-grid ${view}`} style={{ height: virtualizer.getTotalSize() }}>
      {virtualizer.getVirtualItems().map((item) => {
        const row = rows[item.index]
        if (!row) return null
        const style = { height: item.size, transform: `translateY(${item.start - top}px)` }
        if (row.kind === 'heading') {
          return (
            <h2 key={item.key} className="group-heading" style={style}>
              {row.label}
            </h2>
          )
        }
        return (
          <div
            key={item.key}
            className="note-row-group"
            style={{ ...style, gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` }}
          >
            {row.notes.map((note) => (
              <NoteCard key={note._id} note={note} view={view} highlight={highlight} {...actions} />
            ))}
          </div>
        )
      })}
    </div>
  )
}
