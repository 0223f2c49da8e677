// The account-management endpoints beside the contract's (docs/accounts.md), each behind the authenticate hook.
import type { Static } from '@sinclair/typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { ContractError } from '../errors.js'
import { type Authenticate, callerOf, sendUnauthorized } from '../plugins/auth.js'
import type { AccountSettings } from '../services/account-settings.js'
import type { SessionService } from '../services/sessions.js'
import {
  SESSION_NOT_FOUND,
  changePassword,
  deleteAccount,
  deleteSession,
  editUser,
  getSessions,
  logout,
  logoutEverywhere,
} from '../schemas/account-management.js'
import { dropFalsyFields } from './falsy.js'

/** The bare 401 when the caller's session had ended. */
const doneOr401 = (reply: FastifyReply, done: boolean, message: string) =>
  done ? { error: false, message } : sendUnauthorized(reply)

export function accountManagementRoutes(
  app: FastifyInstance,
  sessions: SessionService,
  settings: AccountSettings,
  authenticate: Authenticate,
): void {
  app.post('/logout', {
    onRequest: authenticate,
    schema: logout,
    handler: async (request, reply) =>
      doneOr401(reply, await sessions.logout(callerOf(request)), 'Logged out successfully'),
  })

  app.get('/get-sessions', {
    onRequest: authenticate,
    schema: getSessions,
    handler: async (request) => ({
      error: false,
      sessions: await sessions.list(request.user._id, request.sessionId),
      message: 'Sessions retrieved successfully',
    }),
  })

  app.delete<{ Params: Static<typeof deleteSession.params> }>('/delete-session/:sessionId', {
    onRequest: authenticate,
    schema: deleteSession,
    handler: async (request) => {
      if (!(await sessions.end(callerOf(request), request.params.sessionId)))
        throw new ContractError(404, SESSION_NOT_FOUND)
      return { error: false, message: 'Session ended successfully' }
    },
  })

  app.post('/logout-everywhere', {
    onRequest: authenticate,
    schema: logoutEverywhere,
    handler: async (request, reply) =>
      doneOr401(reply, await sessions.endAll(request.user._id, callerOf(request)), 'Logged out everywhere'),
  })

  app.put<{ Body: Static<typeof changePassword.body> }>('/change-password', {
    onRequest: authenticate,
    preValidation: dropFalsyFields,
    schema: changePassword,
    handler: async (request, reply) => {
      const { currentPassword, newPassword } = request.body
      return doneOr401(
        reply,
        await settings.changePassword(callerOf(request), currentPassword, newPassword),
        'Password changed successfully',
      )
    },
  })

  app.put<{ Body: Static<typeof editUser.body> }>('/edit-user', {
    onRequest: authenticate,
    preValidation: dropFalsyFields,
    schema: editUser,
    handler: async (request, reply) => {
      const user = await settings.rename(callerOf(request), request.body.fullName)
      if (!user) return sendUnauthorized(reply)
      return { error: false, user, message: 'User updated successfully' }
    },
  })

  app.delete<{ Body: Static<typeof deleteAccount.body> }>('/delete-account', {
    onRequest: authenticate,
    preValidation: dropFalsyFields,
    schema: deleteAccount,
    handler: async (request, reply) =>
      doneOr401(
        reply,
        await settings.deleteAccount(callerOf(request), request.body.password),
        'Account deleted successfully',
      ),
  })
}
