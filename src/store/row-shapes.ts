// The users and sessions tables' rows, alike in both drivers (each maps them in its rows.ts).

export interface UserRow {
  id: string
  full_name: string
  email: string
  email_key: string
  password_hash: string
  created_on: string
  /** NULL until first moved (migration 8). */
  tokens_not_before: string | null
}

export interface SessionRow {
  id: string
  user_id: string
  created_on: string
  last_used_on: string
  client: string
}

/** A session's columns under s_ names beside its account's (Store.findSession). */
export type SessionWithUserRow = UserRow & {
  s_id: string
  s_created_on: string
  s_last_used_on: string
  s_client: string
}

export const SESSION_COLUMNS = 'id, user_id, created_on, last_used_on, client'
