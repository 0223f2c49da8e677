// POST /create-account, POST /login and GET /get-user (docs/contract.md, "Endpoints"): bodies, answers, errors and
// OpenAPI operations.
import { Type } from '@sinclair/typebox'
import { REGISTRATION_CLOSED } from '../errors.js'
import { LOGIN_THROTTLED, REGISTRATIONS_THROTTLED, REGISTRATION_THROTTLED } from '../services/brute-force.js'
import { InsufficientStorage, authErrors, bodyErrors, errorBody, serverErrors } from './error-responses.js'
import { User, email, fullName, password } from './fields.js'
import { operationsOf } from './operations.js'

// `required` order is the order of the answers: fullName, then email, then password.
const CreateAccountBody = Type.Object({ fullName, email, password }, { required: ['fullName', 'email', 'password'] })
const LoginBody = Type.Object({ email, password }, { required: ['email', 'password'] })

const ok = Type.Literal(false)

const CreateAccountOk = Type.Union(
  [
    Type.Object({ error: ok, user: User, accessToken: Type.String(), message: Type.String() }),
    Type.Object({ error: Type.Literal(true), message: Type.String() }),
  ],
  { description: 'Registered; or {error: true, message: "User already exists"} when the email is taken.' },
)
const LoginOk = Type.Object(
  { error: ok, message: Type.String(), email: Type.String(), accessToken: Type.String() },
  { description: "Logged in: a new access token, and the account's email." },
)
const GetUserOk = Type.Object({ user: User, message: Type.String() }, { description: 'The user of the token.' })

const RegistrationClosed = errorBody('Registration is closed (REGISTRATION=closed).', [REGISTRATION_CLOSED])
const TooManyRequests = errorBody(
  'Too many failed logins, duplicate registrations or accounts registered from this address; retry after Retry-After seconds.',
  [LOGIN_THROTTLED, REGISTRATION_THROTTLED, REGISTRATIONS_THROTTLED],
  { 'retry-after': { type: 'string', description: 'Seconds until the next attempt is allowed.' } },
)

const open = operationsOf('accounts', false)
const account = operationsOf('accounts', true)

export const createAccount = {
  ...open(
    'createAccount',
    'Register an account',
    'Creates the account and answers with an access token. An email that already exists answers 200 ' +
      'with {error: true, message: "User already exists"}.',
  ),
  body: CreateAccountBody,
  response: {
    200: CreateAccountOk,
    ...bodyErrors,
    403: RegistrationClosed,
    429: TooManyRequests,
    ...serverErrors,
    507: InsufficientStorage,
  },
}

export const login = {
  ...open(
    'login',
    'Log in',
    'Answers a new access token. A wrong password and an unknown email both answer 400 "Invalid Credentials".',
  ),
  body: LoginBody,
  response: { 200: LoginOk, ...bodyErrors, 429: TooManyRequests, ...serverErrors },
}

export const getUser = {
  ...account('getUser', 'The user of the token'),
  response: { 200: GetUserOk, ...authErrors },
}
