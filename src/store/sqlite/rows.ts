// Row shapes of the SQLite tables and their mapping to records.
import type { NoteRecord, SessionRecord, UserRecord } from '../types.js'

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

export const SESSION_COLUMNS = 'id, user_id, created_on, last_used_on, client'

export interface NoteRow {
  id: string
  user_id: string
  title: string
  content: string
  tags: string
  is_pinned: number
  created_on: string
  updated_on: string
}

/** A NoteRow's columns: the stored JSON text (migration 2) is read only where it is the answer. */
export const NOTE_COLUMNS = 'id, user_id, title, content, tags, is_pinned, created_on, updated_on'

export function userFromRow(row: UserRow): UserRecord {
  return {
    _id: row.id,
    fullName: row.full_name,
    email: row.email,
    emailKey: row.email_key,
    passwordHash: row.password_hash,
    createdOn: row.created_on,
    ...(row.tokens_not_before ? { tokensNotBefore: row.tokens_not_before } : {}),
  }
}

export function sessionFromRow(row: SessionRow): SessionRecord {
  return { _id: row.id, userId: row.user_id, createdOn: row.created_on, lastUsedOn: row.last_used_on, client: row.client }
}

export function noteFromRow(row: NoteRow): NoteRecord {
  return {
    _id: row.id,
    title: row.title,
    content: row.content,
    tags: JSON.parse(row.tags) as string[],
    isPinned: row.is_pinned === 1,
    userId: row.user_id,
    createdOn: row.created_on,
    updatedOn: row.updated_on,
  }
}
