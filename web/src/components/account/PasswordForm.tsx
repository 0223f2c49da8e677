// PUT /change-password: the current password (a wrong one counts as a failed login, so the API
// may answer with its wait) and the new one. Every other session ends; this one goes on.
import { useState } from 'react'
import { accountApi } from '../../account-api'
import { useSignedIn } from '../../session'
import { FormPanel } from './FormPanel'
import { useAction } from './use-action'

export function PasswordForm({ onChanged }: { onChanged: () => void }) {
  const { token, user } = useSignedIn()
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const action = useAction()

  function submit() {
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
          <input name="currentPassword" type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} />
        </label>
        <label className="field">
          <span>New password</span>
          <input name="newPassword" type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} />
        </label>
      </div>
    </FormPanel>
  )
}
