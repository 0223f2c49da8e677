// POST /create-account, POST /login and GET /get-user (docs/contract.md, "Endpoints"): thin handlers over AccountService.
import type { Static } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import type { Authenticate } from '../plugins/auth.js'
import { type AccountService, USER_EXISTS } from '../services/accounts.js'
import { createAccount, getUser, login } from '../schemas/accounts.js'
import { dropFalsyFields } from './falsy.js'

export function accountRoutes(app: FastifyInstance, accounts: AccountService, authenticate: Authenticate): void {
  app.post<{ Body: Static<typeof createAccount.body> }>('/create-account', {
    // Closed registration answers 403 whatever the body: checked before it is read.
    onRequest: async () => accounts.assertRegistrationOpen(),
    preValidation: dropFalsyFields,
    schema: createAccount,
    handler: async (request) => {
      const result = await accounts.register(request.body, { ip: request.ip, userAgent: request.headers['user-agent'] })
      if (!result.created) return { error: true, message: USER_EXISTS }
      return { error: false, user: result.user, accessToken: result.accessToken, message: 'Registration Successful' }
    },
  })

  app.post<{ Body: Static<typeof login.body> }>('/login', {
    preValidation: dropFalsyFields,
    schema: login,
    handler: async (request) => {
      const origin = { ip: request.ip, userAgent: request.headers['user-agent'] }
      const { email, accessToken } = await accounts.login(request.body.email, request.body.password, origin)
      return { error: false, message: 'Login Successful', email, accessToken }
    },
  })

  app.get('/get-user', {
    onRequest: authenticate,
    schema: getUser,
    // The hook has read the account. Synchronous: an async handler costs a promise per request.
    handler: (request, reply) => reply.send({ user: request.user, message: '' }),
  })
}
