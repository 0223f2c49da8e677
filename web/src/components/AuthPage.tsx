// Sign in (POST /login, then GET /get-user for the name) and sign up (POST /create-account).
// The form leaves checking to the API (noValidate), so a person reads the API's own words:
// "Invalid Credentials", "User already exists", "Full Name is required", a 429's wait. One
// exception: signing up, a password typed shorter than the minimum (passwords.ts) is refused
// here, in the API's words, before anything is sent. Signing in never checks a length.
import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import { api, messageOf } from '../api'
import { MIN_PASSWORD_LENGTH, PASSWORD_HINT, signUpPasswordProblem } from '../passwords'
import { navigate } from '../router'
import { useSession } from '../session'
import { NoteIcon } from './Icons'

export function AuthPage({ mode }: { mode: 'sign-in' | 'sign-up' }) {
  const session = useSession()
  const notice = session.state.status === 'signed-out' ? session.state.notice : undefined
  const keptEmail = session.state.status === 'signed-out' ? session.state.email : undefined
  const [fullName, setFullName] = useState('')
  const [email, setEmail] = useState(keptEmail ?? '')
  const [password, setPassword] = useState('')
  const [error, setError] = useState<string>()
  const [passwordRefused, setPasswordRefused] = useState(false)
  const [busy, setBusy] = useState(false)
  const errorId = useId()
  const passwordId = useId()
  const hintId = useId()
  const firstField = useRef<HTMLInputElement>(null)
  const passwordField = useRef<HTMLInputElement>(null)
  const signUp = mode === 'sign-up'

  useEffect(() => {
    setError(undefined)
    setPasswordRefused(false)
    document.title = signUp ? 'Create an account · Notes' : 'Sign in · Notes'
    // After a session ended, the email is known: the password is what is missing.
    if (!signUp && keptEmail) passwordField.current?.focus()
    else firstField.current?.focus()
  }, [signUp, keptEmail])

  async function submit(event: FormEvent) {
    event.preventDefault()
    if (busy) return
    const problem = signUp ? signUpPasswordProblem(password) : undefined
    setPasswordRefused(Boolean(problem))
    if (problem) {
      setError(problem)
      passwordField.current?.focus()
      return
    }
    setBusy(true)
    setError(undefined)
    try {
      if (signUp) {
        const { user, accessToken } = await api.createAccount(fullName, email, password)
        session.signedIn(accessToken, user)
      } else {
        const { accessToken } = await api.login(email, password)
        const { user } = await api.getUser(accessToken)
        session.signedIn(accessToken, user)
      }
    } catch (err) {
      setError(messageOf(err))
      setBusy(false)
    }
  }

  const other = signUp ? '/sign-in' : '/sign-up'
  return (
    <main className="auth">
      <div className="auth-card">
        <div className="auth-brand">
          <NoteIcon size={36} />
          <span>Notes</span>
        </div>
        <h1>{signUp ? 'Create your account' : 'Sign in'}</h1>
        {notice && !signUp && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
        <form method="post" noValidate onSubmit={(e) => void submit(e)} aria-describedby={error ? errorId : undefined}>
          {signUp && (
            <label className="field">
              <span>Full name</span>
              <input
                ref={firstField}
                name="fullName"
                autoComplete="name"
                value={fullName}
                onChange={(e) => setFullName(e.target.value)}
              />
            </label>
          )}
          <label className="field">
            <span>Email</span>
            <input
              ref={signUp ? undefined : firstField}
              name="email"
              type="email"
              autoComplete={signUp ? 'email' : 'username'}
              inputMode="email"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          </label>
          <div className="field">
            <label htmlFor={passwordId}>Password</label>
            <input
              ref={passwordField}
              id={passwordId}
              name="password"
              type="password"
              autoComplete={signUp ? 'new-password' : 'current-password'}
              minLength={signUp ? MIN_PASSWORD_LENGTH : undefined}
              aria-describedby={signUp ? hintId : undefined}
              aria-invalid={passwordRefused || undefined}
              value={password}
              onChange={(e) => {
                setPassword(e.target.value)
                setPasswordRefused(false)
              }}
            />
            {signUp && (
              <p className="field-hint" id={hintId}>
                {PASSWORD_HINT}
              </p>
            )}
          </div>
          {error && (
            <p className="form-error" id={errorId} role="alert">
              {error}
            </p>
          )}
          <button className="button primary wide" type="submit" disabled={busy}>
            {busy ? (signUp ? 'Creating account…' : 'Signing in…') : signUp ? 'Create account' : 'Sign in'}
          </button>
        </form>
        <p className="auth-switch">
          {signUp ? 'Already have an account? ' : 'New here? '}
          <a
            href={other}
            onClick={(e) => {
              e.preventDefault()
              navigate(other)
            }}
          >
            {signUp ? 'Sign in' : 'Create an account'}
          </a>
        </p>
      </div>
      <p className="auth-footer">
        <a href="/docs">API reference</a>
      </p>
    </main>
  )
}
