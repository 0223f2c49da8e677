// Which screen shows: the session decides between the sign-in pages and the signed-in ones, the
// path between the pages of each.
import { useEffect } from 'react'
import { AccountPage } from './components/AccountPage'
import { AuthPage } from './components/AuthPage'
import { NotesPage } from './components/NotesPage'
import { type Page, navigate, usePage } from './router'
import { useSession } from './session'

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
    if (state.status !== 'checking' && state.status !== 'unreachable' && screen !== page) navigate(screen, { replace: true })
  }, [state.status, screen, page])

  if (state.status === 'checking') {
    return (
      <p className="splash" role="status">
        Loading…
      </p>
    )
  }
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
  if (screen === '/sign-in' || screen === '/sign-up') return <AuthPage mode={screen === '/sign-up' ? 'sign-up' : 'sign-in'} />
  if (screen === '/account') return <AccountPage />
  return <NotesPage />
}
