// The top bar of the signed-in screens: the app's name, the search box with its regex switch
// (on the notes page), the trash, and the account's name and sign-out.
import type { MouseEvent, RefObject } from 'react'
import type { User } from '../api'
import { navigate, usePage } from '../router'
import { NoteIcon, SearchIcon, TrashIcon } from './Icons'

interface SearchProps {
  typed: string
  setTyped: (value: string) => void
  regex: boolean
  setRegex: (value: boolean) => void
  box: RefObject<HTMLInputElement | null>
}

function link(path: '/' | '/account' | '/trash') {
  return {
    href: path,
    onClick(event: MouseEvent) {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return
      event.preventDefault()
      navigate(path)
    },
  }
}

export function Header({ user, onSignOut, search }: { user: User; onSignOut: () => void; search?: SearchProps }) {
  const page = usePage()
  return (
    <header className="topbar">
      <a className="brand" {...link('/')}>
        <NoteIcon />
        <span>Notes</span>
      </a>
      {search && (
        <div className="search" role="search">
          <SearchIcon />
          <input
            ref={search.box}
            type="search"
            aria-label="Search notes"
            aria-keyshortcuts="/"
            placeholder={search.regex ? 'Search with a regular expression' : 'Search notes'}
            value={search.typed}
            spellCheck={false}
            autoComplete="off"
            onChange={(e) => search.setTyped(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape' && search.typed) {
                e.preventDefault()
                search.setTyped('')
              }
            }}
          />
          <kbd className="search-key" aria-hidden="true">
            /
          </kbd>
          <button
            type="button"
            className="regex-toggle"
            aria-pressed={search.regex}
            aria-label="Regular expression"
            title={search.regex ? 'Regular expression: on' : 'Regular expression: off (the text is searched as typed)'}
            onClick={() => {
              search.setRegex(!search.regex)
              search.box.current?.focus()
            }}
          >
            .*
          </button>
        </div>
      )}
      <a className="trash-link" {...link('/trash')} title="Trash" aria-current={page === '/trash' ? 'page' : undefined}>
        <TrashIcon />
        <span>Trash</span>
      </a>
      <nav className="account-nav" aria-label="Account">
        <a
          className="user-name"
          {...link('/account')}
          title={user.email}
          aria-current={page === '/account' ? 'page' : undefined}
        >
          {user.fullName}
        </a>
        <button type="button" className="button ghost" onClick={() => onSignOut()}>
          Sign out
        </button>
      </nav>
    </header>
  )
}
