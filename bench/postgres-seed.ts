// PostgreSQL for the bench: one fresh database per data set (BenchDatabases) and a seeder that
// fills it through the project's own migrations (PostgresSeeder). The database named in
// DATABASE_URL only serves as the admin connection that creates and drops the bench's databases;
// nothing is written into it.
import pg from 'pg'
import { migrateDatabase } from '../src/store/postgres/index.js'
import type { NoteRecord, UserRecord } from '../src/store/types.js'
import type { Seeder } from './seed.js'

/** Rows per INSERT: 10 000 rows of notes are about 2 MB of parameters, one round trip each. */
const CHUNK = 10_000

const ESCAPE = '\uffff'

/**
 * The PostgreSQL driver's escape of stored text, which cannot hold U+0000: U+0000 as U+FFFF '0',
 * U+FFFF as two. Written out here, as the bench imports nothing of a driver but its index.ts;
 * test/bench-postgres-seed.test.ts reads what the seeder writes back through the driver.
 */
function encodeText(s: string): string {
  if (!s.includes('\u0000') && !s.includes(ESCAPE)) return s
  return s.replaceAll(ESCAPE, ESCAPE + ESCAPE).replaceAll('\u0000', `${ESCAPE}0`)
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: 'notes-service bench' })
  client.on('error', () => {}) // a broken connection also rejects the query in progress
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end().catch(() => {})
  }
}

/**
 * The bench's databases, one per data directory, named notes_bench_<pid>_<n> so a run's
 * leftovers (after a kill) can be told apart. `dropAll` removes every one this run created.
 */
export class BenchDatabases {
  private readonly urls = new Map<string, string>()
  private readonly names: string[] = []
  constructor(private readonly adminUrl: string) {}

  /** Creates the data set's database on first use; returns its URL. */
  async create(dataDir: string): Promise<string> {
    const known = this.urls.get(dataDir)
    if (known) return known
    const name = `notes_bench_${process.pid}_${this.names.length + 1}`
    await withClient(this.adminUrl, (admin) => admin.query(`CREATE DATABASE ${name}`))
    this.names.push(name)
    const url = new URL(this.adminUrl)
    url.pathname = `/${name}`
    this.urls.set(dataDir, url.toString())
    return url.toString()
  }

  /** The URL of a database `create` made; the service for that data set connects to it. */
  urlOf(dataDir: string): string {
    const url = this.urls.get(dataDir)
    if (!url) throw new Error(`no bench database was created for ${dataDir}`)
    return url
  }

  /** One line for the report: the server's version and the settings that bear on durability. */
  async describeServer(): Promise<string> {
    return withClient(this.adminUrl, async (admin) => {
      const { rows } = await admin.query<{ name: string; setting: string }>(
        `SELECT name, current_setting(name) AS setting FROM unnest(ARRAY['server_version', 'fsync', 'synchronous_commit', 'shared_buffers', 'autovacuum']) AS name`,
      )
      const settings = rows.map((r) => `${r.name}=${r.setting}`).join(', ')
      return `PostgreSQL server on this machine (loopback, one database per data set, service pool of its default size): ${settings}.`
    })
  }

  /**
   * After the write scenarios, before the phases that time reads: what autovacuum would have done
   * by then (tens of thousands of notes added). Without it, on a server with autovacuum off (this
   * machine's), the planner kept the seeding's statistics and read the growth users' notes with a
   * sequential scan of a table that had grown several times over.
   */
  async settle(dataDir: string): Promise<void> {
    await withClient(this.urlOf(dataDir), (client) => client.query('VACUUM (ANALYZE) users, notes'))
  }

  /** WITH (FORCE): a service that failed to stop must not keep a database alive. */
  async dropAll(): Promise<void> {
    if (this.names.length === 0) return
    await withClient(this.adminUrl, async (admin) => {
      for (const name of this.names.splice(0)) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    })
    this.urls.clear()
  }
}

// One statement per chunk: each column travels as one array parameter and unnest turns the
// arrays back into rows. Tags are a text[] per row, but unnest would flatten a 2-D array (and
// PostgreSQL arrays must be rectangular), so each row's tags travel as JSON text.
const INSERT_USERS = `
  INSERT INTO users (id, full_name, email, email_key, password_hash, created_on)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])`
const INSERT_NOTES = `
  INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
  SELECT id, user_id, title, content, ARRAY(SELECT json_array_elements_text(tags::json)), is_pinned, created_on, updated_on
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::text[], $8::text[])
    AS t(id, user_id, title, content, tags, is_pinned, created_on, updated_on)`

function noteColumns(notes: NoteRecord[]): unknown[] {
  return [
    notes.map((n) => n._id),
    notes.map((n) => n.userId),
    notes.map((n) => encodeText(n.title)),
    notes.map((n) => encodeText(n.content)),
    notes.map((n) => JSON.stringify(n.tags.map(encodeText))),
    notes.map((n) => n.isPinned),
    notes.map((n) => n.createdOn),
    notes.map((n) => n.updatedOn),
  ]
}

/** Writes into a bench database (from BenchDatabases) before the service for it starts. */
export class PostgresSeeder implements Seeder {
  private client: pg.Client | undefined
  constructor(private readonly url: string) {}

  private async connection(): Promise<pg.Client> {
    if (!this.client) {
      const client = new pg.Client({ connectionString: this.url, application_name: 'notes-service bench seed' })
      client.on('error', () => {})
      await client.connect()
      // Seeding needs no per-statement durability (as SQLite's seeder uses synchronous=NORMAL);
      // the bench measures the service, whose own connections keep the server's default.
      await client.query('SET synchronous_commit = off')
      this.client = client
    }
    return this.client
  }

  async migrate(): Promise<void> {
    await migrateDatabase({ url: this.url })
  }

  async insertUsers(users: UserRecord[]): Promise<void> {
    const client = await this.connection()
    for (let i = 0; i < users.length; i += CHUNK) {
      const chunk = users.slice(i, i + CHUNK)
      await client.query(INSERT_USERS, [
        chunk.map((u) => u._id),
        chunk.map((u) => encodeText(u.fullName)),
        chunk.map((u) => encodeText(u.email)),
        chunk.map((u) => encodeText(u.emailKey)),
        chunk.map((u) => u.passwordHash),
        chunk.map((u) => u.createdOn),
      ])
    }
  }

  /**
   * The next chunk is generated and serialised while the server inserts the previous one, so
   * both cores work; one INSERT in flight at a time keeps memory bounded.
   */
  async insertNotes(notes: Iterable<NoteRecord>): Promise<number> {
    const client = await this.connection()
    let count = 0
    let inFlight: Promise<unknown> = Promise.resolve()
    let chunk: NoteRecord[] = []
    const send = async (rows: NoteRecord[]) => {
      const params = noteColumns(rows)
      await inFlight
      const insert = client.query(INSERT_NOTES, params)
      // Handled here so a failure while the next chunk is generated is not an unhandled
      // rejection; awaiting `inFlight` still throws it.
      insert.catch(() => {})
      inFlight = insert
      count += rows.length
    }
    try {
      for (const note of notes) {
        chunk.push(note)
        if (chunk.length === CHUNK) {
          await send(chunk)
          chunk = []
        }
      }
      if (chunk.length > 0) await send(chunk)
    } finally {
      await inFlight
    }
    return count
  }

  /**
   * VACUUM (ANALYZE) so the service starts on settled tables: planner statistics in place and
   * hint bits set, instead of autovacuum or the first reads doing that work mid-measurement.
   */
  async close(): Promise<void> {
    const client = this.client
    if (!client) return
    this.client = undefined
    try {
      await client.query('VACUUM (ANALYZE) users, notes')
    } finally {
      await client.end().catch(() => {})
    }
  }
}
