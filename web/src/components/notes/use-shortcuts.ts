// The notes page's keys: n starts a new note, / goes to the search; not while typing, nor while
// the editor is open.
import { type RefObject, useEffect, useRef } from 'react'

export function useShortcuts(
  searchBox: RefObject<HTMLInputElement | null>,
  openNew: () => void,
  editorOpen: boolean,
): void {
  const paused = useRef(editorOpen)
  paused.current = editorOpen
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || paused.current) return
      const target = event.target as HTMLElement | null
      if (target?.closest('input, textarea, select, [contenteditable="true"], dialog')) return
      if (event.key === 'n' || event.key === 'N') {
        event.preventDefault()
        openNew()
      } else if (event.key === '/') {
        event.preventDefault()
        searchBox.current?.focus()
        searchBox.current?.select()
      }
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [openNew, searchBox])
}
