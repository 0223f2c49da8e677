import { type Static, Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import type { Authenticate } from '../plugins/auth.js'
import { type AccountService, USER_EXISTS } from '../services/accounts.js'
import { email, fullName, password } from '../schemas/fields.js'
import { errorResponses as errors } from '../schemas/error-responses.js'
import { operations as about } from '../schemas/operations.js'
import { CreateAccountOk, GetUserOk, LoginOk } from '../schemas/responses.js'
import { dropFalsyFields } from './falsy.js'

// `required` order is the order of the answers: fullName, then email, then password.
const CreateAccountBody = Type.Object({ fullName, email, password }, { required: ['fullName', 'email', 'password'] })
const LoginBody = Type.Object({ email, password }, { required: ['email', 'password'] })

export function accountRoutes(app: FastifyInstance, accounts: AccountService, authenticate: Authenticate): void {
  app.post<{ Body: Static<typeof CreateAccountBody> }>('/create-account', {
    // Closed registration answers 403 whatever the body: checked before it is read.
    onRequest: async () => accounts.assertRegistrationOpen(),
    preValidation: dropFalsyFields,
    schema: { ...about.createAccount, body: CreateAccountBody, response: { 200: CreateAccountOk, ...errors.createAccount } },
    handler: async (request) => {
      const result = await accounts.register(request.body, { ip: request.ip, userAgent: request.headers['user-agent'] })
      if (!result.created) return { error: true, message: USER_EXISTS }
      return { error: false, user: result.user, accessToken: result.accessToken, message: 'Registration Successful' }
    },
  })

  app.post<{ Body: Static<typeof LoginBody> }>('/login', {
    preValidation: dropFalsyFields,
    schema: { ...about.login, body: LoginBody, response: { 200: LoginOk, ...errors.login } },
    handler: async (request) => {
      const origin = { ip: request.ip, userAgent: request.headers['user-agent'] }
      const { email, accessToken } = await accounts.login(request.body.email, request.body.password, origin)
      return { error: false, message: 'Login Successful', email, accessToken }
    },
  })

  app.get('/get-user', {
    onRequest: authenticate,
    schema: { ...about.getUser, response: { 200: GetUserOk, ...errors.getUser } },
    // The hook has read the account. Synchronous: an async handler costs a promise per request.
    handler: (request, reply) => reply.send({ user: request.user, message: '' }),
  })
}
