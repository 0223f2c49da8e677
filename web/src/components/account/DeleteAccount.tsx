// DELETE /delete-account: the account, its notes and its sessions go, for good. The button stays
// disabled until the account's email (as at login: any case, spaces around ignored) or DELETE is
// typed; the password is the API's to check, and its message is shown.
import { useState } from 'react'
import { accountApi } from '../../account-api'
import { useSession, useSignedIn } from '../../session'
import { confirms } from './describe'
import { FormPanel } from './FormPanel'
import { useAction } from './use-action'

export const ACCOUNT_DELETED = 'Your account and its notes have been deleted.'

export function DeleteAccount() {
  const session = useSession()
  const { token, user } = useSignedIn()
  const [typed, setTyped] = useState('')
  const [password, setPassword] = useState('')
  const action = useAction()
  const confirmed = confirms(typed, user.email)

  function submit() {
    if (!confirmed) return
    void action.run(async () => {
      await accountApi.deleteAccount(token, password)
      session.signedOut(ACCOUNT_DELETED)
      return undefined
    })
  }

  return (
    <FormPanel
      title="Delete account"
      className="danger-zone"
      action={action}
      onSubmit={submit}
      hint="Deletes your account and all your notes, and signs out every device. This cannot be undone."
      submit={
        <button type="submit" className="button danger" disabled={action.busy || !confirmed}>
          {action.busy ? 'Deleting account…' : 'Delete account'}
        </button>
      }
    >
      <div className="form-stack">
        <label className="field">
          <span>
            Type <strong className="confirm-word">{user.email}</strong> or{' '}
            <strong className="confirm-word">DELETE</strong> to confirm
          </span>
          <input
            name="confirmation"
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
          />
        </label>
        <label className="field">
          <span>Password</span>
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
      </div>
    </FormPanel>
  )
}
