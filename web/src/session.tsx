// Who is signed in. The token from POST /login or /create-account is kept (storage.ts). When the
// app starts with a kept token, it shows the notes at once for the user named in the token's
// payload (docs/contract.md, "The access token": `{user: {_id, fullName, email, createdOn}}`, read, not trusted: the API
// checks the token on every request) while GET /get-user checks it and brings the account's
// current record. Any 401 ends the session: the app goes back to the sign-in page with a message,
// keeping what the editor held (a draft restored after signing in).
import { type ReactNode, createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react'
import { SessionEndedError, type User, api, messageOf } from './api'
import { navigate } from './router'
import { type Draft, TOKEN_KEY, keepDraft, loadToken, loadUnsent, saveToken } from './storage'

export type SessionState =
  | { status: 'checking' }
  | { status: 'signed-out'; notice?: string; email?: string }
  | { status: 'signed-in'; token: string; user: User }
  | { status: 'unreachable'; message: string }

export interface Session {
  state: SessionState
  signedIn: (token: string, user: User) => void
  /**
   * Signs out: the token is forgotten at once and its session ended with POST /logout, sent once
   * `before` settles (requests still to go out with this token, such as waiting deletes). The
   * replica and the outbox are deleted from this browser; with changes still waiting, the person
   * is asked first, and staying signed in keeps them.
   */
  signOut: (before?: Promise<unknown>) => void
  /** Goes to the sign-in page after the API ended this session itself (everywhere, account deleted). */
  signedOut: (notice: string) => void
  /** The account's record changed (a rename). */
  updateUser: (user: User) => void
  /** Ends the session after a 401, keeping the editor's draft. */
  ended: () => void
  /** Checks the kept token again (after the server could not be reached). */
  retry: () => void
  /** Keeps what the editor holds for this tab's next start (a reload to a new version). */
  keepDraft: () => void
  /** The editor registers what it holds, so a 401 anywhere can keep it. */
  setDraftSource: (source: (() => Omit<Draft, 'userId'> | undefined) | undefined) => void
}

const SessionContext = createContext<Session | undefined>(undefined)

export function useSession(): Session {
  const session = useContext(SessionContext)
  if (!session) throw new Error('useSession outside SessionProvider')
  return session
}

/** The signed-in token and user; only for screens rendered while signed in. */
export function useSignedIn(): { token: string; user: User } {
  const { state } = useSession()
  if (state.status !== 'signed-in') throw new Error('useSignedIn while signed out')
  return state
}

export const SESSION_ENDED = 'Your session has ended. Please sign in again.'
export const KEPT_OFFLINE =
  'Changes made offline stay on this device and are sent when you sign in again with this account.'

const unsentWarning = (n: number) =>
  `${n === 1 ? '1 change' : `${n} changes`} made offline ${n === 1 ? 'has' : 'have'} not been sent yet. Signing out deletes ${n === 1 ? 'it' : 'them'} from this device. Sign out anyway?`

/** The user a token's payload names, or undefined when it names none (a token of another shape). */
function userInToken(token: string): User | undefined {
  try {
    const payload = token.split('.')[1] ?? ''
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'))
    const user = (JSON.parse(json) as { user?: Partial<User> }).user
    if (typeof user?._id !== 'string' || typeof user.fullName !== 'string' || typeof user.email !== 'string')
      return undefined
    return {
      _id: user._id,
      fullName: user.fullName,
      email: user.email,
      ...(typeof user.createdOn === 'string' ? { createdOn: user.createdOn } : {}),
    }
  } catch {
    return undefined
  }
}

function initialState(): SessionState {
  const token = loadToken()
  if (!token) return { status: 'signed-out' }
  const user = userInToken(token)
  return user ? { status: 'signed-in', token, user } : { status: 'checking' }
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>(initialState)
  const draftSource = useRef<(() => Omit<Draft, 'userId'> | undefined) | undefined>(undefined)
  const stateRef = useRef(state)
  stateRef.current = state

  const check = useCallback(async () => {
    const token = loadToken()
    if (!token) {
      setState({ status: 'signed-out' })
      return
    }
    // Already showing the account the token names: check it without leaving the screen.
    const showing = stateRef.current.status === 'signed-in' && stateRef.current.token === token
    if (!showing) setState({ status: 'checking' })
    try {
      const { user } = await api.getUser(token)
      if (loadToken() === token) setState({ status: 'signed-in', token, user })
    } catch (err) {
      if (loadToken() !== token) return
      if (err instanceof SessionEndedError) {
        saveToken(null)
        const email = userInToken(token)?.email
        setState({ status: 'signed-out', notice: SESSION_ENDED, ...(email ? { email } : {}) })
        navigate('/sign-in', { replace: true })
      } else if (!showing) {
        setState({ status: 'unreachable', message: messageOf(err) })
      }
      // Otherwise the notes screen shows that the server cannot be reached, with its own retry.
    }
  }, [])

  useEffect(() => {
    if (loadToken()) void check()
  }, [check])

  // Signing in or out in another tab does the same here.
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key !== TOKEN_KEY && event.key !== null) return
      const current = stateRef.current
      const token = loadToken()
      if (!token && current.status === 'signed-in') {
        setState({ status: 'signed-out' })
        navigate('/sign-in', { replace: true })
      } else if (token && (current.status !== 'signed-in' || current.token !== token)) {
        void check().then(() => {
          if (stateRef.current.status === 'signed-in') navigate('/', { replace: true })
        })
      }
    }
    window.addEventListener('storage', onStorage)
    return () => window.removeEventListener('storage', onStorage)
  }, [check])

  const session = useMemo<Session>(() => {
    /** Forgets the token and shows the sign-in page with `signedOut`'s notice and email. */
    const toSignIn = (signedOut: Extract<SessionState, { status: 'signed-out' }>) => {
      saveToken(null)
      setState(signedOut)
      navigate('/sign-in', { replace: true })
    }
    return {
      state,
      signedIn(token, user) {
        saveToken(token)
        setState({ status: 'signed-in', token, user })
        navigate('/', { replace: true })
      },
      signOut(before) {
        const current = stateRef.current
        const unsent = loadUnsent()
        if (unsent > 0 && !window.confirm(unsentWarning(unsent))) return
        toSignIn({ status: 'signed-out' })
        if (current.status !== 'signed-in') return
        // The notes leave this device with the person (docs/web-app.md, "Live and offline").
        void import('./sync/replica-db')
          .then(({ deleteReplica }) => deleteReplica(current.user._id))
          .catch(() => undefined)
        // A failed logout (offline, already ended) leaves nothing to do here: the token is gone
        // from this browser either way, and the docs say what a token kept elsewhere can do.
        void Promise.resolve(before)
          .catch(() => undefined)
          .then(() => api.logout(current.token))
          .catch(() => undefined)
      },
      signedOut(notice) {
        toSignIn({ status: 'signed-out', notice })
      },
      updateUser(user) {
        const current = stateRef.current
        if (current.status === 'signed-in') setState({ ...current, user })
      },
      ended() {
        const current = stateRef.current
        if (current.status !== 'signed-in') return
        const draft = draftSource.current?.()
        if (draft) keepDraft({ ...draft, userId: current.user._id })
        // The replica and its outbox stay on this device for the same account's next sign-in.
        const kept = [draft && 'What you were writing is kept for when you are back.', loadUnsent() > 0 && KEPT_OFFLINE]
          .filter(Boolean)
          .join(' ')
        const notice = kept ? `${SESSION_ENDED} ${kept}` : SESSION_ENDED
        toSignIn({ status: 'signed-out', notice, email: current.user.email })
      },
      retry() {
        void check()
      },
      keepDraft() {
        const current = stateRef.current
        const draft = draftSource.current?.()
        if (draft && current.status === 'signed-in') keepDraft({ ...draft, userId: current.user._id })
      },
      setDraftSource(source) {
        draftSource.current = source
      },
    }
  }, [state, check])

  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>
}
