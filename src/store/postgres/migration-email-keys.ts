// PostgreSQL migration 7: every email_key recomputed with the NFKC rule (../email-rekey.ts) in
// JavaScript, as the service computes keys; PostgreSQL's lower() depends on the collation.
import type pg from 'pg'
import { type KeyedUser, type Rekeyed, changedKeys, parkedKey, planKeys, warnUnreachable } from '../email-rekey.js'
import { decodeText, encodeText } from './rows.js'

/** Users are read in pages, so memory holds a page and the accounts that change. */
const PAGE = 10_000

async function changedUsers(client: pg.ClientBase): Promise<Rekeyed[]> {
  const changed: Rekeyed[] = []
  let after = ''
  for (;;) {
    const { rows } = await client.query<{ id: string; email: string; email_key: string; created_on: string }>(
      'SELECT id, email, email_key, created_on FROM users WHERE id > $1 ORDER BY id LIMIT $2',
      [after, PAGE],
    )
    if (rows.length === 0) return changed
    const users: KeyedUser[] = rows.map((r) => ({
      id: r.id,
      email: decodeText(r.email),
      emailKey: decodeText(r.email_key),
      createdOn: r.created_on,
    }))
    changed.push(...changedKeys(users))
    after = rows[rows.length - 1]!.id
  }
}

export async function nfkcEmailKeys(client: pg.ClientBase): Promise<void> {
  const changed = await changedUsers(client)
  if (changed.length === 0) return
  const { rows } = await client.query<{ id: string; email_key: string }>(
    'SELECT id, email_key FROM users WHERE email_key = ANY($1)',
    [changed.map((u) => encodeText(u.newKey))],
  )
  const plan = planKeys(changed, new Map(rows.map((r) => [decodeText(r.email_key), r.id])))
  const set = 'UPDATE users SET email_key = $2 WHERE id = $1'
  for (const { id } of changed) await client.query(set, [id, parkedKey(id)])
  for (const { id, key } of plan.keys) await client.query(set, [id, encodeText(key)])
  warnUnreachable(plan)
}
