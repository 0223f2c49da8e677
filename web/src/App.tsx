// Which screen shows: the session decides between the sign-in pages and the signed-in ones, the
// path between the pages of each. The account page and the trash are chunks of their own, loaded
// when first shown, so the notes screen's initial download does not carry them (docs/web-app.md).
import { type ComponentType, Suspense, lazy, useEffect } from 'react'
import { AuthPage } from './components/AuthPage'
import { NotesPage } from './components/notes/NotesPage'
import { type Page, navigate, usePage } from './router'
import { useSession } from './session'

/** Shown while the account page's chunk loads. */
const loading = (
  <p className="splash" role="status">
    Loading…
  </p>
)

// A chunk that cannot be fetched (offline, or the service was updated and no longer has it) shows
// a way out rather than an empty page; React keeps a lazy component's first result, so a reload
// is what tries again.
/**
 * A page loaded as a chunk of its own. One that cannot be fetched (offline, or the service was
 * updated and no longer has it) shows a way out rather than an empty page; React keeps a lazy
 * component's first result, so a reload is what tries again.
 */
function lazyPage(name: string, load: () => Promise<ComponentType>) {
  return lazy<ComponentType>(() =>
    load().then(
      (page) => ({ default: page }),
      () => ({
        default: () => (
          <main className="splash">
            <h1>The {name} could not be loaded</h1>
            <p role="alert">Check your connection and reload the page.</p>
            <a href="/">Back to your notes</a>
          </main>
        ),
      }),
    ),
  )
}

const AccountPage = lazyPage('account page', () =>
  import('./components/account/AccountPage').then((module) => module.AccountPage),
)
const TrashPage = lazyPage('trash', () => import('./components/trash/TrashPage').then((module) => module.TrashPage))

function screenFor(status: string, page: Page): Page {
  if (status === 'signed-in') return page === '/sign-in' || page === '/sign-up' ? '/' : page
  return page === '/sign-up' ? '/sign-up' : '/sign-in'
}

export function App() {
  const session = useSession()
  const page = usePage()
  const { state } = session
  const screen = screenFor(state.status, page)

  // The address follows the screen (a signed-out visit to / shows the sign-in page at /sign-in).
  useEffect(() => {
    if (state.status !== 'checking' && state.status !== 'unreachable' && screen !== page)
      navigate(screen, { replace: true })
  }, [state.status, screen, page])

  if (state.status === 'checking') return loading
  if (state.status === 'unreachable') {
    return (
      <main className="splash">
        <h1>Notes cannot start</h1>
        <p role="alert">{state.message}</p>
        <button type="button" className="button primary" onClick={session.retry}>
          Try again
        </button>
      </main>
    )
  }
  if (screen === '/sign-in' || screen === '/sign-up')
    return <AuthPage mode={screen === '/sign-up' ? 'sign-up' : 'sign-in'} />
  if (screen === '/account' || screen === '/trash') {
    return <Suspense fallback={loading}>{screen === '/account' ? <AccountPage /> : <TrashPage />}</Suspense>
  }
  return <NotesPage />
}
