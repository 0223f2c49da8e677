// The search index's build as the service makes it at start (docs/search.md, "Building the index"), timed for the
// search benchmark: on SQLite the seeded index is emptied first, so that the service builds it from the notes as it
// would after migration 16; on PostgreSQL the service builds it after seeding anyway. A build without the index (an
// earlier release) is ready at once.
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'

const POLL_MS = 200

/** Empties SQLite's search index so that the next start builds it; false when this database has none. */
export function emptySqliteIndex(dataDir: string): boolean {
  const db = new Database(join(dataDir, 'notes.db'))
  try {
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'note_text_build'").get()) return false
    db.exec("INSERT INTO note_text (note_text) VALUES ('delete-all'); DELETE FROM note_text_build; INSERT INTO note_text_build VALUES (0)")
    return true
  } finally {
    db.close()
  }
}

/** Seconds from now until the index is complete; undefined when the database gets none within `graceMs`. */
export async function awaitSearchIndex(dataDir: string, databaseUrl: string | undefined, graceMs = 3000): Promise<number | undefined> {
  const began = performance.now()
  const ready = databaseUrl ? postgresReady(databaseUrl) : sqliteReady(dataDir)
  try {
    for (;;) {
      const state = await ready.state()
      if (state === 'ready') return (performance.now() - began) / 1000
      if (state === 'none' && performance.now() - began > graceMs) return undefined
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    }
  } finally {
    await ready.close()
  }
}

type IndexState = 'ready' | 'building' | 'none'

function sqliteReady(dataDir: string) {
  const db = new Database(join(dataDir, 'notes.db'), { readonly: true })
  return {
    state: async (): Promise<IndexState> => {
      if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'note_text_build'").get()) return 'none'
      return db.prepare('SELECT 1 FROM note_text_build').get() ? 'building' : 'ready'
    },
    close: async () => db.close(),
  }
}

function postgresReady(url: string) {
  const client = new pg.Client({ connectionString: url })
  const connected = client.connect()
  return {
    state: async (): Promise<IndexState> => {
      await connected
      const { rows } = await client.query<{ indisvalid: boolean | null }>(
        "SELECT (SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass('notes_text_trigrams')) AS indisvalid",
      )
      const valid = rows[0]?.indisvalid
      return valid === true ? 'ready' : valid === false ? 'building' : 'none'
    },
    close: () => client.end(),
  }
}
