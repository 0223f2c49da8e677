// A feed read while other processes write the same account without a pause (docs/sync.md, "Why no change is
// skipped"), as `notes-service import` does: its batches are transactions that follow each other, and on PostgreSQL
// each holds the account's feed lock from its first note to its commit. Here two connections take turns so that one
// always holds it: the next has written before the last commits. Every read is answered, for as long as the writers
// go on, and a replica that follows the feed through them ends equal to the listing. On both stores.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import pg from 'pg'
import { SQLITE_FILE } from '../src/store/sqlite/index.js'
import { type Harness, type NoteBody, addNote, register, startHarness } from './support/harness.js'
import { type StoreWithSql, openStoreWithSql } from './support/sql-stores.js'
import { SERVICE_LIMITS, storeKinds } from './support/stores.js'

/** How long each writer holds its transaction open after writing, with the next one's write already made. */
const HOLD_MS = 150
/** Reads made while the writers go on; the writers stop after them. */
const READS = 5

/** A transaction at a time on a connection of its own, as the import's. */
interface Writer {
  /** Opens a transaction and edits the note in it (on PostgreSQL its trigger takes the account's feed lock). */
  edit(noteId: string, title: string): Promise<void>
  commit(): Promise<void>
  close(): Promise<void>
}

const UPDATE =
  'UPDATE notes SET title = $1, updated_on = to_char(clock_timestamp() AT TIME ZONE \'UTC\', \'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"\') WHERE id = $2'

async function postgresClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  return client
}

/**
 * Two connections whose notes writes touch different rows of the account's counters, which are kept in shards by
 * pg_backend_pid() % 16 (migrations 4 and 5): otherwise the second write would wait for the first to commit.
 */
async function postgresWriters(url: string): Promise<Writer[]> {
  const shardOf = async (c: pg.Client) =>
    Number((await c.query<{ shard: number }>('SELECT pg_backend_pid() % 16 AS shard')).rows[0]!.shard)
  const first = await postgresClient(url)
  const firstShard = await shardOf(first)
  for (;;) {
    const other = await postgresClient(url)
    if ((await shardOf(other)) !== firstShard) return [postgresWriter(first), postgresWriter(other)]
    await other.end()
  }
}

function postgresWriter(client: pg.Client): Writer {
  return {
    async edit(noteId, title) {
      await client.query('BEGIN')
      await client.query(UPDATE, [title, noteId])
    },
    commit: async () => void (await client.query('COMMIT')),
    close: () => client.end(),
  }
}

function sqliteWriter(dataDir: string): Writer {
  const db = new Database(join(dataDir, SQLITE_FILE))
  db.pragma('busy_timeout = 5000')
  const update = db.prepare(
    "UPDATE notes SET title = ?, updated_on = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?",
  )
  return {
    async edit(noteId, title) {
      db.exec('BEGIN IMMEDIATE')
      update.run(title, noteId)
    },
    commit: async () => void db.exec('COMMIT'),
    close: async () => void db.close(),
  }
}

type Page = { changes: Array<{ noteId: string; note: NoteBody | null }>; cursor: string; more: boolean }
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const byId = (notes: Iterable<NoteBody>) => [...notes].sort((a, b) => a._id.localeCompare(b._id))

for (const kind of storeKinds()) {
  describe(`change feed read while writers hold the account without a pause (${kind})`, () => {
    let db: StoreWithSql
    let h: Harness
    before(async () => {
      db = await openStoreWithSql(kind, SERVICE_LIMITS)
      h = await startHarness('inject', { store: db.store })
    })
    after(async () => {
      await h.app.close()
      await db.close()
    })

    it('answers every read while they go on, and following it misses no change', async () => {
      const { token } = await register(h.client, 'Importer')
      const notes = await Promise.all(
        ['a', 'b', 'c', 'd'].map((t) => addNote(h.client, token, { title: t, content: 'c' })),
      )
      // PostgreSQL: two connections take turns, so that the lock is never free. SQLite has one writer at a time.
      const writers =
        kind === 'postgresql' ? await postgresWriters(db.env.DATABASE_URL!) : [sqliteWriter(db.env.DATA_DIR!)]

      const replica = new Map<string, NoteBody>()
      let cursor: string | undefined
      /** Reads pages until the feed has no more for now: the statuses of the reads that failed. */
      const follow = async (): Promise<string[]> => {
        for (;;) {
          const since = cursor === undefined ? '' : `&since=${encodeURIComponent(cursor)}`
          const res = await h.client.request('GET', `/get-changes?limit=2${since}`, { token })
          if (res.status !== 200) return [`${res.status} ${res.text}`]
          const page = res.json as Page
          for (const c of page.changes) {
            if (c.note) replica.set(c.noteId, c.note)
            else replica.delete(c.noteId)
          }
          cursor = page.cursor
          if (!page.more) return []
        }
      }

      let reading = true
      const failures: string[] = []
      let edits = 0
      const writing = (async () => {
        let holding: Writer | undefined
        for (let i = 0; reading; i++) {
          const writer = writers[i % writers.length]!
          if (writers.length === 1) await holding?.commit()
          await writer.edit(notes[i % notes.length]!._id, `edit ${i}`)
          edits++
          // The next transaction has written: only now the one before commits.
          if (writers.length > 1) await holding?.commit()
          holding = writer
          await pause(HOLD_MS)
        }
        await holding?.commit()
      })()
      try {
        for (let read = 0; read < READS && failures.length === 0; read++) {
          // Each read after another write of theirs.
          for (const seen = edits; edits === seen;) await pause(5)
          failures.push(...(await follow()))
          // On SQLite the service's writes would wait for the writer's lock (one writer at a time): reads only.
          if (kind === 'postgresql') await addNote(h.client, token, { title: `during ${read}`, content: 'c' })
        }
      } finally {
        reading = false
        await writing
        await Promise.all(writers.map((w) => w.close()))
      }
      assert.deepEqual(failures, [], 'every read was answered')
      assert.deepEqual(await follow(), [])
      const listed = ((await h.client.request('GET', '/get-all-notes', { token })).json as { notes: NoteBody[] }).notes
      assert.deepEqual(byId(replica.values()), byId(listed))
      assert.ok(edits >= READS, 'the writers went on through the reads')
    })
  })
}
