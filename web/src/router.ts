// The app's pages are plain paths (/, /sign-in, /sign-up, /account, /trash) that the service answers
// with the same HTML (src/plugins/web-app.ts); this follows the browser's history between them.
import { useSyncExternalStore } from 'react'

export type Page = '/' | '/sign-in' | '/sign-up' | '/account' | '/trash'
const PAGES: readonly Page[] = ['/', '/sign-in', '/sign-up', '/account', '/trash']

const listeners = new Set<() => void>()

function subscribe(listener: () => void): () => void {
  listeners.add(listener)
  window.addEventListener('popstate', listener)
  return () => {
    listeners.delete(listener)
    window.removeEventListener('popstate', listener)
  }
}

/** The current page; a path the app does not know counts as the notes page. */
export function currentPage(): Page {
  const path = window.location.pathname.replace(/\/+$/, '') || '/'
  return PAGES.find((page) => page === path) ?? '/'
}

export function usePage(): Page {
  return useSyncExternalStore(subscribe, currentPage)
}

export function navigate(page: Page, options: { replace?: boolean } = {}): void {
  if (window.location.pathname === page) return
  if (options.replace) window.history.replaceState(null, '', page)
  else window.history.pushState(null, '', page)
  for (const listener of listeners) listener()
}
