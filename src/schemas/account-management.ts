// Responses and OpenAPI descriptions of the account-management endpoints (docs/accounts.md), under a tag of their own.
import { Type } from '@sinclair/typebox'
import { operationsOf } from './operations.js'
import { authErrors, bodyErrors, errorBody } from './error-responses.js'
import { User } from './responses.js'

export const SESSION_NOT_FOUND = 'Session not found'

export const ACCOUNT_MANAGEMENT_TAG = 'account management'

const ok = Type.Literal(false)
const done = (description: string) => Type.Object({ error: ok, message: Type.String() }, { description })

const Session = Type.Object({
  _id: Type.String(),
  createdOn: Type.String(),
  lastUsedOn: Type.String({ description: 'Updated at most every 5 minutes.' }),
  client: Type.String({ description: "The session's User-Agent, trimmed to 200 characters; empty when none was sent." }),
  current: Type.Boolean({ description: 'True for the session of the token that asks.' }),
})

export const LoggedOut = done('This token gets 401 everywhere from now on.')
export const SessionsOk = Type.Object(
  { error: ok, sessions: Type.Array(Session), message: Type.String() },
  { description: "The caller's live sessions, most recently used first." },
)
export const SessionEnded = done('That session ended: its token gets 401 everywhere from now on.')
export const LoggedOutEverywhere = done("Every session of the account ended, the caller's too.")
export const PasswordChanged = done("The new password is stored; every other session ended, the caller's stays.")
export const UserUpdated = Type.Object({ error: ok, user: User, message: Type.String() }, { description: 'The user as stored now.' })
export const AccountDeleted = done('The account, its notes and its sessions are deleted; its tokens get 401.')

const SessionNotFound = errorBody('No session with this id belongs to the user (a malformed id included).', [SESSION_NOT_FOUND])
const WrongPassword = errorBody(
  'A required field is missing or falsy ("… is required"), a field has the wrong JSON type, is too long or holds an unpaired ' +
    'surrogate, the body is not valid UTF-8, not valid JSON or not an object, the new password is shorter than 8 characters or the same as the current one, or the password is wrong ' +
    '("Invalid Credentials", counted against this session: the one that uses its last allowed failure ends the session).',
)

const withBody = { ...bodyErrors, ...authErrors }

export const accountErrorResponses = {
  logout: withBody,
  getSessions: authErrors,
  deleteSession: { ...withBody, 404: SessionNotFound },
  logoutEverywhere: withBody,
  changePassword: { ...withBody, 400: WrongPassword },
  editUser: withBody,
  deleteAccount: { ...withBody, 400: WrongPassword },
}

const about = operationsOf(ACCOUNT_MANAGEMENT_TAG, true)

export const accountOperations = {
  logout: about('logout', 'Log out', 'Ends the session of this token. A token issued before sessions existed ends with every other such token of the account.'),
  getSessions: about('getSessions', 'The sessions of the account', 'Every live session: when it was made and last used, its client, and which one is asking.'),
  deleteSession: about('deleteSession', 'End one session', "Ends one of the caller's sessions (its own included). Another user's session id answers 404."),
  logoutEverywhere: about('logoutEverywhere', 'Log out everywhere', "Ends every session of the account, the caller's included, and every token issued before sessions existed."),
  changePassword: about(
    'changePassword',
    'Change the password',
    "Checks currentPassword (wrong ones are counted per session, never toward the login's limits), stores newPassword " +
      "(at least 8 characters, not the current one) and ends every other session. The caller's session stays; a token issued before " +
      'sessions existed ends too. Commits only while the caller\'s session is alive: one that a revocation ended meanwhile answers 401.',
  ),
  editUser: about('editUser', 'Rename', 'Sets fullName (at most 200 characters, without control characters).'),
  deleteAccount: about('deleteAccount', 'Delete the account', "Checks the password (wrong ones are counted per session), then deletes the account, its notes and its sessions, while the caller's session is alive."),
}
