// The account-management endpoints (docs/accounts.md), under a tag of their own: bodies, answers, errors and OpenAPI
// operations.
import { Type } from '@sinclair/typebox'
import { operationsOf } from './operations.js'
import { authErrors, bodyErrors, errorBody } from './error-responses.js'
import { User, answered, fullName, password } from './fields.js'

export const SESSION_NOT_FOUND = 'Session not found'

export const ACCOUNT_MANAGEMENT_TAG = 'account management'

const sessionIdParams = Type.Object({ sessionId: Type.String() })
const ChangePasswordBody = Type.Object(
  {
    currentPassword: answered(password, { required: 'Current password is required' }),
    newPassword: answered(password, { required: 'New password is required' }),
  },
  { required: ['currentPassword', 'newPassword'] },
)
const EditUserBody = Type.Object({ fullName }, { required: ['fullName'] })
const DeleteAccountBody = Type.Object({ password }, { required: ['password'] })

const ok = Type.Literal(false)
const done = (description: string) => Type.Object({ error: ok, message: Type.String() }, { description })

const Session = Type.Object({
  _id: Type.String(),
  createdOn: Type.String(),
  lastUsedOn: Type.String({ description: 'Updated at most every 5 minutes.' }),
  client: Type.String({
    description: "The session's User-Agent, trimmed to 200 characters; empty when none was sent.",
  }),
  current: Type.Boolean({ description: 'True for the session of the token that asks.' }),
})

const LoggedOut = done('This token gets 401 everywhere from now on.')
const SessionsOk = Type.Object(
  { error: ok, sessions: Type.Array(Session), message: Type.String() },
  { description: "The caller's live sessions, most recently used first." },
)
const SessionEnded = done('That session ended: its token gets 401 everywhere from now on.')
const LoggedOutEverywhere = done("Every session of the account ended, the caller's too.")
const PasswordChanged = done("The new password is stored; every other session ended, the caller's stays.")
const UserUpdated = Type.Object(
  { error: ok, user: User, message: Type.String() },
  { description: 'The user as stored now.' },
)
const AccountDeleted = done('The account, its notes, its files and its sessions are deleted; its tokens get 401.')

const SessionNotFound = errorBody('No session with this id belongs to the user (a malformed id included).', [
  SESSION_NOT_FOUND,
])
const WrongPassword = errorBody(
  'A required field is missing or falsy ("… is required"), a field has the wrong JSON type, is too long or holds an unpaired ' +
    'surrogate, the body is not valid UTF-8, not valid JSON or not an object, the new password is shorter than 8 characters or the same as the current one, or the password is wrong ' +
    '("Invalid Credentials", counted against this session: the one that uses its last allowed failure ends the session).',
)

const withBody = { ...bodyErrors, ...authErrors }

const about = operationsOf(ACCOUNT_MANAGEMENT_TAG, true)

export const logout = {
  ...about(
    'logout',
    'Log out',
    'Ends the session of this token. A token issued before sessions existed ends with every other such token of the account.',
  ),
  response: { 200: LoggedOut, ...withBody },
}

export const getSessions = {
  ...about(
    'getSessions',
    'The sessions of the account',
    'Every live session: when it was made and last used, its client, and which one is asking.',
  ),
  response: { 200: SessionsOk, ...authErrors },
}

export const deleteSession = {
  ...about(
    'deleteSession',
    'End one session',
    "Ends one of the caller's sessions (its own included). Another user's session id answers 404.",
  ),
  params: sessionIdParams,
  response: { 200: SessionEnded, ...withBody, 404: SessionNotFound },
}

export const logoutEverywhere = {
  ...about(
    'logoutEverywhere',
    'Log out everywhere',
    "Ends every session of the account, the caller's included, and every token issued before sessions existed.",
  ),
  response: { 200: LoggedOutEverywhere, ...withBody },
}

export const changePassword = {
  ...about(
    'changePassword',
    'Change the password',
    "Checks currentPassword (wrong ones are counted per session, never toward the login's limits), stores newPassword " +
      "(at least 8 characters, not the current one) and ends every other session. The caller's session stays; a token issued before " +
      "sessions existed ends too. Commits only while the caller's session is alive: one that a revocation ended meanwhile answers 401.",
  ),
  body: ChangePasswordBody,
  response: { 200: PasswordChanged, ...withBody, 400: WrongPassword },
}

export const editUser = {
  ...about('editUser', 'Rename', 'Sets fullName (at most 200 characters, without control characters).'),
  body: EditUserBody,
  response: { 200: UserUpdated, ...withBody },
}

export const deleteAccount = {
  ...about(
    'deleteAccount',
    'Delete the account',
    "Checks the password (wrong ones are counted per session), then deletes the account, its notes, its files and its sessions, while the caller's session is alive.",
  ),
  body: DeleteAccountBody,
  response: { 200: AccountDeleted, ...withBody, 400: WrongPassword },
}
