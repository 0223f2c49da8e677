// The disk's own limit: single-row durable commits per second, one transaction (and one fsync)
// each, with the service's settings (WAL, synchronous=FULL), on the same file system as the
// service's database. Group commit is how the service's add-note rate can exceed this figure.
import { rmSync } from 'node:fs'
import { openSqliteDatabase } from '../src/store/sqlite/index.js'

export interface CommitRate {
  commitsPerSecond: number
  commits: number
  seconds: number
}

/** Commits single rows for `seconds` (at most `maxCommits`) in a scratch database in `dir`. */
export function singleRowCommitRate(dir: string, seconds: number, maxCommits = 100_000): CommitRate {
  const db = openSqliteDatabase({ dataDir: dir, synchronous: 'FULL' })
  try {
    db.exec('CREATE TABLE IF NOT EXISTS probe (id INTEGER PRIMARY KEY, body TEXT NOT NULL)')
    const insert = db.prepare('INSERT INTO probe (body) VALUES (?)')
    const body = 'x'.repeat(300) // about the size of a note row
    const start = performance.now()
    const until = start + seconds * 1000
    let commits = 0
    while (commits < maxCommits && performance.now() < until) {
      insert.run(body) // autocommit: its own transaction and fsync
      commits++
    }
    const elapsed = (performance.now() - start) / 1000
    return { commitsPerSecond: commits / elapsed, commits, seconds: elapsed }
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
