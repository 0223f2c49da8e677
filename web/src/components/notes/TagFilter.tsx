// The tag filter above the notes: one chip per tag in use, the most used first, with its count;
// a chosen tag that no note carries any more is let go.
import { useEffect, useMemo, useState } from 'react'
import type { Note } from '../../api'

function countTags(notes: Note[] | undefined): Array<[string, number]> {
  const counts = new Map<string, number>()
  for (const note of notes ?? []) for (const tag of note.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1)
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
}

export interface TagFilterState {
  /** The tag the notes are filtered by, if any. */
  tag: string | undefined
  setTag: (tag: string | undefined) => void
  /** Every tag in use and how many notes carry it, the most used first. */
  counts: Array<[string, number]>
  /** The tags in use, for the editor's suggestions. */
  known: string[]
}

export function useTagFilter(all: Note[] | undefined): TagFilterState {
  const [tag, setTag] = useState<string>()
  const counts = useMemo(() => countTags(all), [all])
  const known = useMemo(() => counts.map(([t]) => t), [counts])
  useEffect(() => {
    if (tag && all && !counts.some(([t]) => t === tag)) setTag(undefined)
  }, [tag, counts, all])
  return { tag, setTag, counts, known }
}

export function TagFilter({ tag, setTag, counts }: TagFilterState) {
  return (
    <div className="tag-filter" role="group" aria-label="Filter by tag">
      {counts.length > 0 && (
        <button type="button" className="filter-chip" aria-pressed={!tag} onClick={() => setTag(undefined)}>
          All notes
        </button>
      )}
      {counts.map(([t, count]) => (
        <button
          key={t}
          type="button"
          className="filter-chip"
          aria-pressed={tag === t}
          title={t}
          onClick={() => setTag(tag === t ? undefined : t)}
        >
          <span className="filter-chip-name">{t}</span> <span className="count">{count}</span>
        </button>
      ))}
    </div>
  )
}
