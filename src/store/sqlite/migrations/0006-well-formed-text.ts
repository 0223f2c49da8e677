// SQLite migration 6, beyond SQL: text stored before lone surrogates were refused becomes what
// reading it has always given (U+FFFD for each invalid byte or escaped lone surrogate), and every
// email_key is recomputed with the NFKC rule (src/store/email-rekey.ts). Only changed rows are written.
import { isUtf8 } from 'node:buffer'
import type { Database } from 'better-sqlite3'
import { changedKeys, type KeyedUser, parkedKey, planKeys, warnUnreachable } from '../../email-rekey.js'
import type { SqliteMigration as Migration } from '../../migrations.js'

/** Rows whose `columns` hold invalid UTF-8, rewritten as read; a lone surrogate was stored as three bytes from ED. */
function repairColumns(db: Database, table: string, columns: string[]): void {
  const blobs = columns.map((c) => `CAST(${c} AS BLOB)`)
  const suspect = blobs.map((b) => `instr(${b}, X'ED') > 0`).join(' OR ')
  const bad: string[] = []
  for (const row of db
    .prepare(`SELECT id, ${blobs.join(', ')} FROM ${table} WHERE ${suspect}`)
    .raw()
    .iterate() as IterableIterator<[string, ...Buffer[]]>) {
    const [id, ...values] = row
    if (values.some((v) => !isUtf8(v))) bad.push(id)
  }
  const read = db.prepare<[string], Record<string, string>>(`SELECT ${columns.join(', ')} FROM ${table} WHERE id = ?`)
  const write = db.prepare(`UPDATE ${table} SET ${columns.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`)
  for (const id of bad) write.run({ ...read.get(id), id })
}

function repairTags(db: Database): void {
  // JSON.stringify writes a paired surrogate as it is and only a lone one as an escape.
  const rows = db
    .prepare<[], { id: string; tags: string }>("SELECT id, tags FROM notes WHERE instr(tags, '\\ud') > 0")
    .all()
  const write = db.prepare('UPDATE notes SET tags = ? WHERE id = ?')
  for (const { id, tags } of rows) {
    const parsed = JSON.parse(tags) as string[]
    if (parsed.every((t) => t.isWellFormed())) continue
    write.run(JSON.stringify(parsed.map((t) => t.toWellFormed())), id)
  }
}

function rekeyEmails(db: Database): void {
  const users = db
    .prepare<[], KeyedUser>('SELECT id, email, email_key AS emailKey, created_on AS createdOn FROM users')
    .iterate()
  const changed = changedKeys(users) // reads them all before the first write
  if (changed.length === 0) return
  const holder = db.prepare<[string], string>('SELECT id FROM users WHERE email_key = ?').pluck()
  const holders = new Map<string, string>()
  for (const { newKey } of changed) {
    const id = holder.get(newKey)
    if (id !== undefined) holders.set(newKey, id)
  }
  const plan = planKeys(changed, holders)
  const setKey = db.prepare('UPDATE users SET email_key = ? WHERE id = ?')
  for (const { id } of changed) setKey.run(parkedKey(id), id)
  for (const { id, key } of plan.keys) setKey.run(key, id)
  warnUnreachable(plan)
}

function wellFormedText(db: Database): void {
  repairColumns(db, 'users', ['full_name', 'email'])
  repairColumns(db, 'notes', ['title', 'content'])
  repairTags(db)
  rekeyEmails(db)
}

export const migration: Migration = {
  version: 6,
  name: 'well-formed-text',
  run: wellFormedText,
}
