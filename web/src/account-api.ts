// The account endpoints beside the contract's (docs/accounts.md), used by the account page only:
// this module is part of that page's lazy chunk, so the notes screen's download does not carry it.
// POST /logout is in api.ts, since the header's "Sign out" needs it on every page. The account's
// files (docs/attachments.md) are listed and deleted here too.
import type { ListedAttachmentAnswer } from '../../src/attachment-shape.js'
import { type User, call } from './api'

/** One of the account's files, with the notes that link to it (live, in the trash, or in a kept version). */
export type ListedAttachment = ListedAttachmentAnswer

export interface AttachmentUsage {
  bytes: number
  /** 0: no limit. */
  limit: number
}

export interface AccountSession {
  _id: string
  createdOn: string
  lastUsedOn: string
  /** The User-Agent the session signed in with, trimmed; "" when none was sent. */
  client: string
  /** The session of the token asking. */
  current: boolean
}

export const accountApi = {
  sessions: (token: string) => call<{ sessions: AccountSession[] }>('GET', '/get-sessions', { token }),
  endSession: (token: string, id: string) =>
    call<{ message: string }>('DELETE', `/delete-session/${encodeURIComponent(id)}`, { token }),
  logoutEverywhere: (token: string) => call<{ message: string }>('POST', '/logout-everywhere', { token }),
  changePassword: (token: string, currentPassword: string, newPassword: string) =>
    call<{ message: string }>('PUT', '/change-password', { token, body: { currentPassword, newPassword } }),
  rename: (token: string, fullName: string) => call<{ user: User }>('PUT', '/edit-user', { token, body: { fullName } }),
  attachments: (token: string) =>
    call<{ attachments: ListedAttachment[]; usage: AttachmentUsage }>('GET', '/get-attachments', { token }),
  deleteAttachment: (token: string, id: string) =>
    call<{ message: string }>('DELETE', `/delete-attachment/${encodeURIComponent(id)}`, { token }),
  deleteAccount: (token: string, password: string) =>
    call<{ message: string }>('DELETE', '/delete-account', { token, body: { password } }),
}
