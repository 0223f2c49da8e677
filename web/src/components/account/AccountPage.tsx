// /account, loaded as a chunk of its own (App.tsx): the name (PUT /edit-user), where the account
// is signed in (Sessions), the password (PasswordForm), the account's files (Files), importing and
// exporting notes (ImportNotes, ExportNotes) and deleting the account (DeleteAccount).
// The endpoints are the account ones beside the contract's (docs/accounts.md).
import { useEffect, useState } from 'react'
import { accountApi } from '../../account-api'
import { navigate } from '../../router'
import { useSession, useSignedIn } from '../../session'
import { Header } from '../Header'
import { DeleteAccount } from './DeleteAccount'
import { ExportNotes } from './ExportNotes'
import { Files } from './Files'
import { FormPanel } from './FormPanel'
import { ImportNotes } from './ImportNotes'
import { PasswordForm } from './PasswordForm'
import { Sessions } from './Sessions'
import { useAction } from './use-action'
import './account.css'
import './import-export.css'

function Profile() {
  const session = useSession()
  const { token, user } = useSignedIn()
  const [fullName, setFullName] = useState(user.fullName)
  const action = useAction()
  const since = user.createdOn
    ? new Date(user.createdOn).toLocaleDateString(undefined, { dateStyle: 'long' })
    : undefined

  function submit() {
    void action.run(async () => {
      const answer = await accountApi.rename(token, fullName)
      session.updateUser(answer.user)
      setFullName(answer.user.fullName)
      return 'Name saved.'
    })
  }

  return (
    <FormPanel
      title="Profile"
      action={action}
      onSubmit={submit}
      after={
        <dl className="facts">
          <dt>Email</dt>
          <dd>{user.email}</dd>
          {since && (
            <>
              <dt>Member since</dt>
              <dd>{since}</dd>
            </>
          )}
        </dl>
      }
    >
      <div className="inline-form">
        <label className="field">
          <span>Name</span>
          <input name="fullName" autoComplete="name" value={fullName} onChange={(e) => setFullName(e.target.value)} />
        </label>
        <button type="submit" className="button primary" disabled={action.busy}>
          {action.busy ? 'Saving…' : 'Save name'}
        </button>
      </div>
    </FormPanel>
  )
}

export function AccountPage() {
  const session = useSession()
  const { user } = useSignedIn()
  // Bumped when the password changes: the other sessions have ended, so the list is read again.
  const [sessionsVersion, setSessionsVersion] = useState(0)
  useEffect(() => {
    document.title = 'Account · Notes'
  }, [])
  return (
    <>
      <Header user={user} onSignOut={() => session.signOut()} />
      <main className="account-page" id="main">
        <p className="back">
          <a
            href="/"
            onClick={(e) => {
              e.preventDefault()
              navigate('/')
            }}
          >
            ← Back to your notes
          </a>
        </p>
        <h1>Account</h1>
        <Profile />
        <Sessions version={sessionsVersion} />
        <PasswordForm onChanged={() => setSessionsVersion((n) => n + 1)} />
        <Files />
        <ImportNotes />
        <ExportNotes />
        <DeleteAccount />
      </main>
    </>
  )
}
