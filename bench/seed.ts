// Seeding: users and notes are written straight into the database before the service starts,
// so a million notes take seconds, not hours of HTTP requests and argon2 hashes. Seeded users
// have no usable password (nothing is hashed); the bench signs their tokens with the service's
// secret instead. Each store gets a Seeder (PostgreSQL's is in bench/postgres-seed.ts); the
// bench picks one by the store it benchmarks.
import type Database from 'better-sqlite3'
import { newId } from '../src/services/ids.js'
import { migrateSqlite, openSqliteDatabase } from '../src/store/sqlite/index.js'
import { emptyInput } from '../src/note-shape.js'
import type { NoteRecord, UserRecord } from '../src/store/types.js'

export interface Seeder {
  /** Brings the schema up to date (the project's own migrations). */
  migrate(): Promise<void>
  insertUsers(users: UserRecord[]): Promise<void>
  /** Inserts in large transactions; returns how many notes were written. */
  insertNotes(notes: Iterable<NoteRecord>): Promise<number>
  close(): Promise<void>
}

const CHUNK = 20_000

/** Writes into the SQLite file the service will open (the service must not be running). */
export class SqliteSeeder implements Seeder {
  private readonly db: Database.Database
  constructor(dataDir: string) {
    // NORMAL: seeding needs no per-transaction durability; the bench measures the service.
    this.db = openSqliteDatabase({ dataDir, synchronous: 'NORMAL' })
  }
  async migrate(): Promise<void> {
    migrateSqlite(this.db)
  }
  async insertUsers(users: UserRecord[]): Promise<void> {
    const insert = this.db.prepare(
      `INSERT INTO users (id, full_name, email, email_key, password_hash, created_on)
       VALUES (@_id, @fullName, @email, @emailKey, @passwordHash, @createdOn)`,
    )
    this.db.transaction(() => users.forEach((u) => insert.run(u)))()
  }
  async insertNotes(notes: Iterable<NoteRecord>): Promise<number> {
    const insert = this.db.prepare(
      `INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    const writeChunk = this.db.transaction((chunk: NoteRecord[]) => {
      for (const n of chunk) {
        insert.run(
          n._id,
          n.userId,
          n.title,
          n.content,
          JSON.stringify(n.tags),
          n.isPinned ? 1 : 0,
          n.createdOn,
          n.updatedOn,
        )
      }
    })
    let count = 0
    let chunk: NoteRecord[] = []
    for (const note of notes) {
      chunk.push(note)
      if (chunk.length === CHUNK) {
        writeChunk(chunk)
        count += chunk.length
        chunk = []
      }
    }
    writeChunk(chunk)
    return count + chunk.length
  }
  async close(): Promise<void> {
    this.db.pragma('wal_checkpoint(TRUNCATE)')
    this.db.close()
  }
}

// ---- Data -----------------------------------------------------------------------------------

/** A small deterministic generator (mulberry32), so every run seeds the same text. */
export function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = (
  'alpha budget call draft email family garden holiday idea journal kitchen ledger market notes ' +
  'office plan quarter review school travel update visit weekend yoga zoom project invoice doctor ' +
  'birthday recipe book movie train flight hotel report meeting deadline'
).split(' ')

/** The bench's search queries and which notes they match (see noteText). */
export const LITERAL_QUERY = 'grocery'
export const REGEX_QUERY = 'meet(ing)? at [0-9]{1,2}(am|pm)'

function sentence(rnd: () => number, words: number): string {
  const out: string[] = []
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rnd() * WORDS.length)] as string)
  return out.join(' ')
}

/** Note i of a user: every 10th mentions the grocery list, every 20th a meeting time. */
function noteText(i: number, rnd: () => number): { title: string; content: string } {
  let content = `${sentence(rnd, 12)}. ${sentence(rnd, 10)}.`
  if (i % 10 === 3) content += ' Grocery list: milk, eggs, bread.'
  if (i % 20 === 7) content += ` Meeting at ${1 + (i % 12)}pm with the team.`
  return { title: `Note ${i}: ${sentence(rnd, 3)}`, content }
}

const EPOCH = Date.parse('2026-01-01T00:00:00.000Z')

export function makeUser(label: string): UserRecord {
  const email = `${label}@bench.example`
  return {
    _id: newId(),
    fullName: `Bench ${label}`,
    email,
    emailKey: email,
    passwordHash: '$seeded$no-password', // cannot log in; the bench signs this user's tokens
    createdOn: new Date(EPOCH).toISOString(),
  }
}

/** `count` notes of one user, oldest first, one minute apart; every 25th pinned. */
export function* makeNotes(userId: string, count: number, seed = 1): Generator<NoteRecord, void, undefined> {
  const rnd = random(seed)
  for (let i = 0; i < count; i++) {
    const at = new Date(EPOCH + i * 60_000).toISOString()
    const tags = i % 3 === 0 ? [] : [WORDS[i % WORDS.length] as string]
    yield {
      _id: newId(),
      ...emptyInput(),
      userId,
      ...noteText(i, rnd),
      tags,
      isPinned: i % 25 === 0,
      createdOn: at,
      updatedOn: at,
    }
  }
}

/** Notes for many users: `perUser` each, user after user. */
export function* makeNotesOf(users: UserRecord[], perUser: number): Generator<NoteRecord, void, undefined> {
  let seed = 1000
  for (const user of users) yield* makeNotes(user._id, perUser, seed++)
}
