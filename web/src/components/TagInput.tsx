// Tags as chips: Enter or a comma adds what is typed, Backspace in the empty field removes the
// last chip, and the person's existing tags are offered as they type (an ARIA combobox:
// https://www.w3.org/WAI/ARIA/apg/patterns/combobox/). Arrow keys move through the offers.
import { type KeyboardEvent, useId, useMemo, useState } from 'react'
import { CloseIcon } from './Icons'

const MAX_OFFERS = 8

export function TagInput({
  tags,
  onChange,
  known,
}: {
  tags: string[]
  onChange: (tags: string[]) => void
  known: string[]
}) {
  const [text, setText] = useState('')
  const [active, setActive] = useState(-1)
  const [open, setOpen] = useState(false)
  const id = useId()
  const listId = `${id}-offers`

  const offers = useMemo(() => {
    const typed = text.trim().toLowerCase()
    if (!typed) return []
    const taken = new Set(tags)
    return known.filter((tag) => !taken.has(tag) && tag.toLowerCase().includes(typed)).slice(0, MAX_OFFERS)
  }, [text, tags, known])
  const showOffers = open && offers.length > 0

  function add(tag: string) {
    const value = tag.trim()
    setText('')
    setActive(-1)
    if (value && !tags.includes(value)) onChange([...tags, value])
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown' && offers.length) {
      event.preventDefault()
      setOpen(true)
      setActive((i) => (i + 1) % offers.length)
    } else if (event.key === 'ArrowUp' && offers.length) {
      event.preventDefault()
      setActive((i) => (i <= 0 ? offers.length - 1 : i - 1))
    } else if (event.key === 'Enter' && !event.ctrlKey && !event.metaKey) {
      if (!text.trim() && active < 0) return
      event.preventDefault()
      add(showOffers && active >= 0 ? offers[active]! : text)
    } else if (event.key === ',') {
      event.preventDefault()
      add(text)
    } else if (event.key === 'Backspace' && text === '' && tags.length) {
      onChange(tags.slice(0, -1))
    } else if (event.key === 'Escape' && showOffers) {
      // Closes the offers only, not the editor around it.
      event.preventDefault()
      event.stopPropagation()
      setOpen(false)
    }
  }

  return (
    <div className="tag-input">
      {tags.length > 0 && (
        <ul className="tags chips" aria-label="Tags of this note">
          {tags.map((tag) => (
            <li key={tag} className="chip">
              <span>{tag}</span>
              <button
                type="button"
                className="chip-remove"
                aria-label={`Remove tag ${tag}`}
                onClick={() => onChange(tags.filter((t) => t !== tag))}
              >
                <CloseIcon size={14} />
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="combobox">
        <input
          id={id}
          role="combobox"
          aria-label="Add a tag"
          aria-autocomplete="list"
          aria-expanded={showOffers}
          aria-controls={listId}
          aria-activedescendant={showOffers && active >= 0 ? `${listId}-${active}` : undefined}
          placeholder={tags.length ? 'Add another tag' : 'Add tags (Enter or comma)'}
          value={text}
          autoComplete="off"
          onChange={(e) => {
            setText(e.target.value)
            setOpen(true)
            setActive(-1)
          }}
          onKeyDown={onKeyDown}
          onBlur={() => {
            setOpen(false)
            if (text.trim()) add(text)
          }}
        />
        <ul id={listId} role="listbox" aria-label="Existing tags" className="offers" hidden={!showOffers}>
          {offers.map((tag, i) => (
            <li
              key={tag}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? 'active' : undefined}
              // Before the input's blur: the offer is taken, not the half-typed text.
              onMouseDown={(e) => {
                e.preventDefault()
                add(tag)
              }}
            >
              {tag}
            </li>
          ))}
        </ul>
      </div>
    </div>
  )
}
