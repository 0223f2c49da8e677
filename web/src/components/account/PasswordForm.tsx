// PUT /change-password: the current password (a wrong one counts as a failed login, so the API
// may answer with its wait) and the new one. Every other session ends; this one goes on. A new
// password shorter than the minimum or equal to the current one is refused here, in the API's
// words (passwords.ts), before anything is sent; the API's own refusal is shown as any failure.
import { useId, useRef, useState } from 'react'
import { accountApi } from '../../account-api'
import { MIN_PASSWORD_LENGTH, newPasswordProblem } from '../../passwords'
import { useSignedIn } from '../../session'
import { FormPanel } from './FormPanel'
import { useAction } from './use-action'

export function PasswordForm({ onChanged }: { onChanged: () => void }) {
  const { token, user } = useSignedIn()
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [nextRefused, setNextRefused] = useState(false)
  const nextField = useRef<HTMLInputElement>(null)
  const nextId = useId()
  const hintId = useId()
  const action = useAction()

  function submit() {
    const problem = newPasswordProblem(current, next)
    setNextRefused(Boolean(problem))
    if (problem) {
      action.refuse(problem)
      nextField.current?.focus()
      return
    }
    void action.run(async () => {
      await accountApi.changePassword(token, current, next)
      setCurrent('')
      setNext('')
      onChanged()
      return 'Password changed. Every other device is signed out.'
    })
  }

  return (
    <FormPanel
      title="Password"
      action={action}
      onSubmit={submit}
      submit={
        <button type="submit" className="button primary" disabled={action.busy}>
          {action.busy ? 'Changing password…' : 'Change password'}
        </button>
      }
    >
      {/* The account's email, unseen, lets a password manager file the new password under it. */}
      <input type="email" name="username" autoComplete="username" value={user.email} readOnly hidden />
      <div className="form-row">
        <label className="field">
          <span>Current password</span>
          <input
            name="currentPassword"
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </label>
        <div className="field">
          <label htmlFor={nextId}>New password</label>
          <input
            ref={nextField}
            id={nextId}
            name="newPassword"
            type="password"
            autoComplete="new-password"
            minLength={MIN_PASSWORD_LENGTH}
            aria-describedby={hintId}
            aria-invalid={nextRefused || undefined}
            value={next}
            onChange={(e) => {
              setNext(e.target.value)
              setNextRefused(false)
            }}
          />
          <p className="field-hint" id={hintId}>
            At least {MIN_PASSWORD_LENGTH} characters, different from the current one.
          </p>
        </div>
      </div>
    </FormPanel>
  )
}
