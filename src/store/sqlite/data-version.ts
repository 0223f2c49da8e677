// Whether another connection has committed to the database: SQLite's data_version changes with
// every commit made by any other connection to the same file, never with this connection's own
// (https://www.sqlite.org/pragma.html#pragma_data_version). The in-memory caches of this store
// (listing-cache.ts, account-cache.ts) are cleared when it changes, so writes by another
// --workers process, `notes-service import` or an operator's sqlite3 shell are never hidden.
//
// The check is a read transaction (two fcntl lock calls and an fstat), the largest single item
// in a profile of GET /get-user under load, and costly where system calls are slow
// (docs/performance.md). So one check serves every lookup that asked for it since the last
// one (sharedCheck, ../shared-check.ts), and GET /get-all-notes asks for the account and the
// listing in one store call (Store.listNotesJsonOfAccount), not two.
import type { Database, Statement } from 'better-sqlite3'

/** A function that runs `clear` whenever another connection has committed since its last call. */
export function clearingOnOutsideCommits(db: Database, clear: () => void): () => void {
  const dataVersion = db.prepare('PRAGMA data_version').pluck() as Statement<[], number>
  let seen = dataVersion.get() as number
  return () => {
    const now = dataVersion.get() as number
    if (now === seen) return
    seen = now
    clear()
  }
}
