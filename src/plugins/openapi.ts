// GET /openapi.json, generated from the route schemas. Register before the routes: @fastify/swagger collects them as added.
import swagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'
import { ACCOUNT_MANAGEMENT_TAG } from '../schemas/account-management.js'
import { BEARER } from '../schemas/operations.js'

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'notes-service',
        version: '1.0.0',
        description:
          'Accounts and per-user notes over JSON. Errors are {error: true, message}, except the two add-note ' +
          '"is required" answers ({message}) and 401, which is the plain text "Unauthorized".',
      },
      tags: [
        { name: 'accounts', description: 'Registration, login and the current user.' },
        { name: 'notes', description: "The user's notes." },
        {
          name: ACCOUNT_MANAGEMENT_TAG,
          description:
            'Beyond the original interface, in its style: sign out, sessions, password change, renaming and deleting ' +
            'the account. Tokens name a session (claim sid) that these can end on every instance at once.',
        },
        { name: 'operations', description: 'Health, readiness and metrics, for operators.' },
      ],
      components: {
        securitySchemes: {
          [BEARER]: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description:
              'The accessToken of /create-account or /login, sent as "Authorization: Bearer <token>". ' +
              'The scheme word is not checked; the token is the second space-separated part.',
          },
        },
      },
    },
  })

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}
