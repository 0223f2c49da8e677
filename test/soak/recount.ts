// What the store holds of an account, read from the database itself once the servers have stopped: the rows of
// each of its tables (a deleted account leaves none), and its usage counters (account_usage, moved by triggers:
// src/store/*/quota.ts) beside a recount from the rows.
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { SQLITE_FILE } from '../../src/store/sqlite/index.js'
import type { Deployment } from './deployments.js'

export interface Usage {
  notes: number
  bytes: number
  kept: number
}

export interface StoredAccount {
  /** Rows per table that carry the account's id. */
  rows: Record<string, number>
  counters?: Usage
  recount: Usage
}

const TABLES = [
  'users',
  'sessions',
  'notes',
  'trashed_notes',
  'note_revisions',
  'account_usage',
  'note_changes',
  'note_feeds',
]
const bytes = (s: string) => Buffer.byteLength(s, 'utf8')

interface TextRow {
  title: string
  content: string
  tags: string[] | string
}

/** What the quota counts of a note, as the triggers count it: the UTF-8 bytes of its title, content and tags. */
function sizeOf(row: TextRow): number {
  const tags = typeof row.tags === 'string' ? (JSON.parse(row.tags) as string[]) : row.tags
  return bytes(row.title) + bytes(row.content) + tags.reduce((sum, tag) => sum + bytes(tag), 0)
}

function recountOf(notes: TextRow[], kept: TextRow[]): Usage {
  return {
    notes: notes.length,
    bytes: notes.reduce((s, r) => s + sizeOf(r), 0),
    kept: kept.reduce((s, r) => s + sizeOf(r), 0),
  }
}

export async function readStoredAccounts(
  deployment: Deployment,
  userIds: string[],
): Promise<Map<string, StoredAccount>> {
  return deployment.store === 'sqlite'
    ? readSqlite(deployment.dataDir, userIds)
    : readPostgres(deployment.databaseUrl!, userIds)
}

function readSqlite(dataDir: string, userIds: string[]): Map<string, StoredAccount> {
  const db = new Database(join(dataDir, SQLITE_FILE), { readonly: true })
  try {
    const out = new Map<string, StoredAccount>()
    const counts = TABLES.map(
      (t) =>
        [
          t,
          db
            .prepare<[string], number>(`SELECT count(*) FROM ${t} WHERE ${t === 'users' ? 'id' : 'user_id'} = ?`)
            .pluck(),
        ] as const,
    )
    const usage = db.prepare<[string], Usage>('SELECT notes, bytes, kept FROM account_usage WHERE user_id = ?')
    const notes = db.prepare<[string], TextRow>('SELECT title, content, tags FROM notes WHERE user_id = ?')
    const kept = db.prepare<[string, string], TextRow>(
      'SELECT title, content, tags FROM trashed_notes WHERE user_id = ? UNION ALL SELECT title, content, tags FROM note_revisions WHERE user_id = ?',
    )
    for (const id of userIds) {
      const counters = usage.get(id)
      out.set(id, {
        rows: Object.fromEntries(counts.map(([t, q]) => [t, q.get(id) ?? 0])),
        ...(counters && { counters }),
        recount: recountOf(notes.all(id), kept.all(id, id)),
      })
    }
    return out
  } finally {
    db.close()
  }
}

async function readPostgres(url: string, userIds: string[]): Promise<Map<string, StoredAccount>> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  try {
    const out = new Map<string, StoredAccount>()
    for (const id of userIds) {
      const rows: Record<string, number> = {}
      for (const t of TABLES) {
        const { rows: r } = await client.query<{ n: string }>(
          `SELECT count(*) AS n FROM ${t} WHERE ${t === 'users' ? 'id' : 'user_id'} = $1`,
          [id],
        )
        rows[t] = Number(r[0]!.n)
      }
      // account_usage is spread over shards per account: the counters are their sums.
      const { rows: u } = await client.query<{ notes: string; bytes: string; kept: string }>(
        'SELECT sum(notes) AS notes, sum(bytes) AS bytes, sum(kept) AS kept FROM account_usage WHERE user_id = $1',
        [id],
      )
      const { rows: notes } = await client.query<TextRow>('SELECT title, content, tags FROM notes WHERE user_id = $1', [
        id,
      ])
      const { rows: kept } = await client.query<TextRow>(
        'SELECT title, content, tags FROM trashed_notes WHERE user_id = $1 UNION ALL SELECT title, content, tags FROM note_revisions WHERE user_id = $1',
        [id],
      )
      const counters =
        rows.account_usage! > 0
          ? { notes: Number(u[0]!.notes), bytes: Number(u[0]!.bytes), kept: Number(u[0]!.kept) }
          : undefined
      out.set(id, { rows, ...(counters && { counters }), recount: recountOf(notes, kept) })
    }
    return out
  } finally {
    await client.end()
  }
}
