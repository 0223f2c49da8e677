// The account's sessions (GET /get-sessions), most recently used first, this device's marked:
// each can be signed out (DELETE /delete-session/:id), or all at once (POST /logout-everywhere),
// which signs this device out too and goes back to the sign-in page.
import { useEffect, useId, useRef, useState } from 'react'
import { type AccountSession, accountApi } from '../../account-api'
import { SessionEndedError, messageOf } from '../../api'
import { useSession, useSignedIn } from '../../session'
import { describeClient, formatDateTime, lastActive } from './describe'
import { Outcome } from './Outcome'
import { useAction } from './use-action'

export const SIGNED_OUT_EVERYWHERE = 'You are signed out on every device.'

/** `version` changes when another form changed the sessions (a password change ends the others). */
export function Sessions({ version }: { version: number }) {
  const session = useSession()
  const { token } = useSignedIn()
  const [sessions, setSessions] = useState<AccountSession[]>()
  const [loadError, setLoadError] = useState<string>()
  const [attempt, setAttempt] = useState(0)
  const action = useAction()
  const heading = useRef<HTMLHeadingElement>(null)
  const headingId = useId()
  const { ended } = session

  useEffect(() => {
    let live = true
    setLoadError(undefined)
    accountApi.sessions(token).then(
      // This device first, then the API's order (most recently used first).
      (answer) => live && setSessions([...answer.sessions].sort((a, b) => Number(b.current) - Number(a.current))),
      (err: unknown) => {
        if (!live) return
        if (err instanceof SessionEndedError) ended()
        else setLoadError(messageOf(err))
      },
    )
    return () => {
      live = false
    }
  }, [token, version, attempt, ended])

  function signOut(target: AccountSession, name: string) {
    if (target.current) {
      session.signOut()
      return
    }
    void action.run(async () => {
      await accountApi.endSession(token, target._id)
      setSessions((list) => list?.filter((s) => s._id !== target._id))
      // The button is gone with its row: the list's heading takes the focus.
      heading.current?.focus()
      return `Signed out ${name}.`
    })
  }

  function signOutEverywhere() {
    void action.run(async () => {
      await accountApi.logoutEverywhere(token)
      session.signedOut(SIGNED_OUT_EVERYWHERE)
      return undefined
    })
  }

  return (
    <section className="panel" aria-labelledby={headingId}>
      <div className="panel-header">
        <h2 id={headingId} ref={heading} tabIndex={-1}>
          Where you are signed in
        </h2>
        <button type="button" className="button" onClick={signOutEverywhere} disabled={action.busy}>
          Sign out everywhere
        </button>
      </div>
      <p className="panel-hint">
        Signing out a device ends its session at once: it has to sign in again. “Sign out everywhere” signs out this
        device too.
      </p>
      {loadError ? (
        <div className="form-error" role="alert">
          <span>{loadError}</span>{' '}
          <button type="button" className="button" onClick={() => setAttempt((n) => n + 1)}>
            Try again
          </button>
        </div>
      ) : !sessions ? (
        <p className="panel-hint" role="status">
          Loading sessions…
        </p>
      ) : (
        <ul className="sessions" aria-label="Sessions">
          {sessions.map((s) => {
            const name = describeClient(s.client)
            return (
              <li key={s._id} className="session">
                <div className="session-about">
                  <p className="session-client" title={s.client || undefined}>
                    {name}
                    {s.current && <span className="badge">This device</span>}
                  </p>
                  <p className="session-times">
                    Signed in {formatDateTime(s.createdOn)} ·{' '}
                    {s.current ? 'active now' : `active ${lastActive(s.lastUsedOn)}`}
                  </p>
                </div>
                <button
                  type="button"
                  className="button"
                  aria-label={
                    s.current ? 'Sign out this device' : `Sign out ${name}, signed in ${formatDateTime(s.createdOn)}`
                  }
                  onClick={() => signOut(s, name)}
                  disabled={action.busy}
                >
                  Sign out
                </button>
              </li>
            )
          })}
        </ul>
      )}
      <Outcome action={action} />
    </section>
  )
}
