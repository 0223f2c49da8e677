// /account: who is signed in (GET /get-user's answer). The account settings of a later issue
// belong here.
import { useEffect } from 'react'
import { navigate } from '../router'
import { useSession, useSignedIn } from '../session'
import { Header } from './Header'

export function AccountPage() {
  const session = useSession()
  const { user } = useSignedIn()
  useEffect(() => {
    document.title = 'Account · Notes'
  }, [])
  const since = user.createdOn ? new Date(user.createdOn).toLocaleDateString(undefined, { dateStyle: 'long' }) : undefined
  return (
    <>
      <Header user={user} onSignOut={session.signOut} />
      <main className="account-page" id="main">
        <h1>Account</h1>
        <dl className="facts">
          <dt>Name</dt>
          <dd>{user.fullName}</dd>
          <dt>Email</dt>
          <dd>{user.email}</dd>
          {since && (
            <>
              <dt>Member since</dt>
              <dd>{since}</dd>
            </>
          )}
        </dl>
        <p>
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
      </main>
    </>
  )
}
