// What history costs on disk: 1 000 notes of about 1 KiB each, each edited once (1 000 revisions),
// the store's size measured before and after the edits. No service: the store alone, as each
// driver writes. SQLite: the database's pages; PostgreSQL: note_revisions with its indexes and TOAST.
// Run: npm run build:bench && node dist-bench/bench/history-cost.js   (env DATABASE_URL adds PostgreSQL)
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { newId } from '../src/services/ids.js'
import { openPostgresStore } from '../src/store/postgres/index.js'
import { SQLITE_FILE, openSqliteStore } from '../src/store/sqlite/index.js'
import type { NoteRecord } from '../src/store/types.js'
import type { StoreDriver } from '../src/store/driver.js'

const EDITS = 1000
const text = (seed: number) => `Note ${seed}: `.padEnd(1024, 'lorem ipsum dolor sit amet ')

/** Inserts EDITS notes, measures, edits each once, measures again: the bytes the edits added. */
async function measure(store: StoreDriver, size: () => Promise<number>): Promise<{ added: number; text: number }> {
  const userId = newId()
  await store.createUser({ _id: userId, fullName: 'Bench', email: `${userId}@bench`, emailKey: `${userId}@bench`, passwordHash: 'x', createdOn: new Date().toISOString() })
  const notes: NoteRecord[] = []
  for (let i = 0; i < EDITS; i++) {
    const now = new Date().toISOString()
    const note = { _id: newId(), title: `Title ${i}`, content: text(i), tags: ['bench', 'history'], isPinned: false, userId, createdOn: now, updatedOn: now }
    await store.insertNote(note)
    notes.push(note)
  }
  const before = await size()
  for (const note of notes) {
    await store.updateNote(userId, note._id, { content: text(note._id.length + 1) }, new Date().toISOString(), { keepRevisions: 50, revisionId: newId() })
  }
  const after = await size()
  const textBytes = notes.reduce((sum, n) => sum + Buffer.byteLength(n.title) + Buffer.byteLength(n.content) + n.tags.join('').length, 0)
  return { added: after - before, text: textBytes }
}

function report(store: string, { added, text }: { added: number; text: number }): void {
  console.log(`| ${store} | ${(added / 1024).toFixed(0)} KiB | ${(text / 1024).toFixed(0)} KiB | ${(added / text).toFixed(2)} |`)
}

async function main(): Promise<void> {
  console.log(`| store | disk per ${EDITS} edits | their text | ratio |\n|---|---|---|---|`)
  const dir = mkdtempSync(join(tmpdir(), 'history-cost-'))
  try {
    const store = openSqliteStore({ dataDir: dir })
    const file = new Database(join(dir, SQLITE_FILE))
    const pages = () => {
      file.pragma('wal_checkpoint(PASSIVE)')
      return (file.pragma('page_count', { simple: true }) as number) * (file.pragma('page_size', { simple: true }) as number)
    }
    // The WAL holds new pages until a checkpoint: the store's own connection writes them back.
    const size = async () => {
      await store.ping()
      return pages()
    }
    report('SQLite', await measure(store, size))
    file.close()
    await store.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const url = process.env.DATABASE_URL
  if (!url) return
  const store = await openPostgresStore({ url })
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const size = async () => Number((await client.query<{ n: string }>("SELECT pg_total_relation_size('note_revisions') AS n")).rows[0]?.n)
  try {
    report('PostgreSQL', await measure(store, size))
  } finally {
    await client.end()
    await store.close()
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`history-cost failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  process.exitCode = 1
})
