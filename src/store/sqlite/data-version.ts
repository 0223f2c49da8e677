// Whether another connection has committed to the database: SQLite's data_version changes with
// every commit made by any other connection to the same file, never with this connection's own
// (https://www.sqlite.org/pragma.html#pragma_data_version). The in-memory caches of this store
// (listing-cache.ts, account-cache.ts) clear themselves when it changes, so writes by another
// --workers process, `notes-service import` or an operator's sqlite3 shell are never hidden.
import type { Database, Statement } from 'better-sqlite3'

/** A function answering true once for each call after which another connection committed. */
export function committedElsewhere(db: Database): () => boolean {
  const dataVersion = db.prepare('PRAGMA data_version').pluck() as Statement<[], number>
  let seen = dataVersion.get() as number
  return () => {
    const now = dataVersion.get() as number
    if (now === seen) return false
    seen = now
    return true
  }
}
