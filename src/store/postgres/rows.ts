// Row shapes of the PostgreSQL tables and their mapping to records.
//
// PostgreSQL text cannot hold U+0000, which JSON (and the SQLite store) accept. So that a client
// cannot tell the stores apart, every stored string goes through a reversible escape: U+0000
// becomes U+FFFF '0', and U+FFFF itself (a noncharacter, never meant for interchange) becomes
// U+FFFF U+FFFF. Every other string is stored unchanged, so the tables stay readable. The
// mapping is one-to-one, so the unique email key keeps its meaning.
import type { NoteRecord, SessionRecord, UserRecord } from '../types.js'

const ESCAPE = '\uffff'

export function encodeText(s: string): string {
  if (!s.includes('\u0000') && !s.includes(ESCAPE)) return s
  // The escape character first, so the escapes made for NUL are not escaped again.
  return s.replaceAll(ESCAPE, ESCAPE + ESCAPE).replaceAll('\u0000', `${ESCAPE}0`)
}

export function decodeText(s: string): string {
  if (!s.includes(ESCAPE)) return s
  return s.replace(/\uffff([\uffff0])/g, (_m, c: string) => (c === ESCAPE ? ESCAPE : '\u0000'))
}

/**
 * decodeText for JSON text built by PostgreSQL from escaped strings (to_json leaves U+FFFF and
 * '0' as they are): the same left-to-right reading, except that a stored U+0000 is written as
 * the JSON escape \u0000, which is how JSON.stringify writes it too.
 */
export function decodeJsonText(json: string): string {
  if (!json.includes(ESCAPE)) return json
  return json.replace(/\uffff([\uffff0])/g, (_m, c: string) => (c === ESCAPE ? ESCAPE : '\\u0000'))
}

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

/** A NoteRow's columns: the stored JSON text (migration 2) is read only where it is the answer. */
export const NOTE_COLUMNS = 'id, user_id, title, content, tags, is_pinned, created_on, updated_on'

export interface NoteRow {
  id: string
  user_id: string
  title: string
  content: string
  tags: string[]
  is_pinned: boolean
  created_on: string
  updated_on: string
}

export function userFromRow(row: UserRow): UserRecord {
  return {
    _id: row.id,
    fullName: decodeText(row.full_name),
    email: decodeText(row.email),
    emailKey: decodeText(row.email_key),
    passwordHash: row.password_hash,
    createdOn: row.created_on,
    ...(row.tokens_not_before ? { tokensNotBefore: row.tokens_not_before } : {}),
  }
}

export function sessionFromRow(row: SessionRow): SessionRecord {
  return { _id: row.id, userId: row.user_id, createdOn: row.created_on, lastUsedOn: row.last_used_on, client: decodeText(row.client) }
}

export function noteFromRow(row: NoteRow): NoteRecord {
  return {
    _id: row.id,
    title: decodeText(row.title),
    content: decodeText(row.content),
    tags: row.tags.map(decodeText),
    isPinned: row.is_pinned,
    userId: row.user_id,
    createdOn: row.created_on,
    updatedOn: row.updated_on,
  }
}
