// The account-management endpoints beside the contract's (docs/accounts.md), each behind the authenticate hook.
import { type Static, Type } from '@sinclair/typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { ContractError } from '../errors.js'
import { type Authenticate, callerOf, sendUnauthorized } from '../plugins/auth.js'
import type { AccountSettings } from '../services/account-settings.js'
import type { SessionService } from '../services/sessions.js'
import {
  AccountDeleted,
  LoggedOut,
  LoggedOutEverywhere,
  PasswordChanged,
  SESSION_NOT_FOUND,
  SessionEnded,
  SessionsOk,
  UserUpdated,
  accountErrorResponses as errors,
  accountOperations as about,
} from '../schemas/account-management.js'
import { fullName, password, sessionIdParams } from '../schemas/fields.js'
import { dropFalsyFields } from './falsy.js'

const ChangePasswordBody = Type.Object({ currentPassword: password, newPassword: password }, { required: ['currentPassword', 'newPassword'] })
const EditUserBody = Type.Object({ fullName }, { required: ['fullName'] })
const DeleteAccountBody = Type.Object({ password }, { required: ['password'] })

/** The bare 401 when the caller's session had ended. */
const doneOr401 = (reply: FastifyReply, done: boolean, message: string) => (done ? { error: false, message } : sendUnauthorized(reply))

export function accountManagementRoutes(app: FastifyInstance, sessions: SessionService, settings: AccountSettings, authenticate: Authenticate): void {
  app.post('/logout', {
    onRequest: authenticate,
    schema: { ...about.logout, response: { 200: LoggedOut, ...errors.logout } },
    handler: async (request, reply) => doneOr401(reply, await sessions.logout(callerOf(request)), 'Logged out successfully'),
  })

  app.get('/get-sessions', {
    onRequest: authenticate,
    schema: { ...about.getSessions, response: { 200: SessionsOk, ...errors.getSessions } },
    handler: async (request) => ({
      error: false,
      sessions: await sessions.list(request.user._id, request.sessionId),
      message: 'Sessions retrieved successfully',
    }),
  })

  app.delete<{ Params: Static<typeof sessionIdParams> }>('/delete-session/:sessionId', {
    onRequest: authenticate,
    schema: { ...about.deleteSession, params: sessionIdParams, response: { 200: SessionEnded, ...errors.deleteSession } },
    handler: async (request) => {
      if (!(await sessions.end(callerOf(request), request.params.sessionId))) throw new ContractError(404, SESSION_NOT_FOUND)
      return { error: false, message: 'Session ended successfully' }
    },
  })

  app.post('/logout-everywhere', {
    onRequest: authenticate,
    schema: { ...about.logoutEverywhere, response: { 200: LoggedOutEverywhere, ...errors.logoutEverywhere } },
    handler: async (request, reply) =>
      doneOr401(reply, await sessions.endAll(request.user._id, callerOf(request)), 'Logged out everywhere'),
  })

  app.put<{ Body: Static<typeof ChangePasswordBody> }>('/change-password', {
    onRequest: authenticate,
    preValidation: dropFalsyFields,
    schema: { ...about.changePassword, body: ChangePasswordBody, response: { 200: PasswordChanged, ...errors.changePassword } },
    handler: async (request, reply) => {
      const { currentPassword, newPassword } = request.body
      return doneOr401(reply, await settings.changePassword(callerOf(request), currentPassword, newPassword), 'Password changed successfully')
    },
  })

  app.put<{ Body: Static<typeof EditUserBody> }>('/edit-user', {
    onRequest: authenticate,
    preValidation: dropFalsyFields,
    schema: { ...about.editUser, body: EditUserBody, response: { 200: UserUpdated, ...errors.editUser } },
    handler: async (request, reply) => {
      const user = await settings.rename(callerOf(request), request.body.fullName)
      if (!user) return sendUnauthorized(reply)
      return { error: false, user, message: 'User updated successfully' }
    },
  })

  app.delete<{ Body: Static<typeof DeleteAccountBody> }>('/delete-account', {
    onRequest: authenticate,
    preValidation: dropFalsyFields,
    schema: { ...about.deleteAccount, body: DeleteAccountBody, response: { 200: AccountDeleted, ...errors.deleteAccount } },
    handler: async (request, reply) =>
      doneOr401(reply, await settings.deleteAccount(callerOf(request), request.body.password), 'Account deleted successfully'),
  })
}
