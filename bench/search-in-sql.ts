// Where should search filtering happen on SQLite? Compares, for one user's notes:
//   sql: the RE2 matcher runs inside SQLite as the note_matches() function, page by page (what
//        the driver does), and the matching notes come out as JSON text built by SQLite;
//   js:  every one of the user's notes is read into JS, filtered with the same matcher, and
//        the matches encoded with JSON.stringify.
// Run: node --import tsx bench/search-in-sql.ts   (prints a table; ratios are js / sql)
import { performance } from 'node:perf_hooks'
import { compileSearchPattern } from '../src/services/search.js'
import { openSqliteDatabase, migrateSqlite } from '../src/store/sqlite/index.js'
import { SqliteNotes } from '../src/store/sqlite/notes.js'
import { type NoteRow, noteFromRow } from '../src/store/sqlite/rows.js'
import { newId } from '../src/services/ids.js'

const WORDS = ['budget', 'meeting', 'holiday', 'recipe', 'garden', 'invoice', 'travel', 'project', 'music', 'health']

function seed(db: ReturnType<typeof openSqliteDatabase>, userId: string, count: number) {
  const insert = db.prepare(
    'INSERT INTO notes (id, user_id, title, content, tags, is_pinned, created_on, updated_on) VALUES (?, ?, ?, ?, ?, 0, ?, ?)',
  )
  db.prepare("INSERT INTO users VALUES (?, 'u', ?, ?, 'x', '2026-01-01T00:00:00.000Z')").run(userId, `${userId}@x`, `${userId}@x`)
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const w = WORDS[i % WORDS.length]!
      const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString()
      insert.run(newId(), userId, `${w} note ${i}`, `Some text about ${w} and other things, line ${i}. `.repeat(4), '[]', at, at)
    }
  })()
}

async function time(fn: () => unknown, rounds: number): Promise<number> {
  await fn() // warm up
  const start = performance.now()
  for (let i = 0; i < rounds; i++) await fn()
  return (performance.now() - start) / rounds
}

const db = openSqliteDatabase({ dataDir: ':memory:' })
migrateSqlite(db)
const notes = new SqliteNotes(db)
const all = db.prepare<[string], NoteRow>(
  'SELECT * FROM notes WHERE user_id = ? ORDER BY is_pinned DESC, created_on DESC, id DESC',
)
console.log('| notes of the user | query | sql ms | js ms | js / sql |')
console.log('|---:|---|---:|---:|---:|')
for (const size of [1_000, 10_000]) {
  const userId = newId()
  seed(db, userId, size)
  seed(db, newId(), size) // another user's notes beside them
  for (const query of ['holiday', 'gar.*en|invo']) {
    const matcher = compileSearchPattern(query)
    const rounds = size >= 10_000 ? 20 : 100
    const sql = await time(() => notes.searchNotesJson(userId, matcher), rounds)
    const js = await time(
      () => JSON.stringify(all.all(userId).filter((r) => matcher.test(r.title) || matcher.test(r.content)).map(noteFromRow)),
      rounds,
    )
    console.log(`| ${size} | \`${query}\` | ${sql.toFixed(2)} | ${js.toFixed(2)} | ${(js / sql).toFixed(2)} |`)
  }
}
db.close()
