// Reads of one kind, made together: every call made in one turn of the event loop is answered
// at its end (setImmediate, after the poll phase that read the requests) by one read transaction
// that runs each read in turn. Outside a transaction SQLite takes and drops its read lock for
// every statement (fcntl calls and an fstat in WAL mode, data-version.ts), about as costly as a
// primary-key lookup itself; one transaction takes it once for the turn (docs/accounts.md, "What
// it costs"). Nothing is kept: each call's read is made after its request arrived.
import type { Database } from 'better-sqlite3'

export function batchedReads<K, V>(db: Database, read: (key: K) => V): (key: K) => Promise<V> {
  let pending: Array<{ key: K; resolve: (value: V) => void; reject: (err: unknown) => void }> = []
  // A failing read answers its own call; the others go on in the same transaction.
  const readAll = db.transaction((batch: typeof pending) => {
    for (const call of batch) {
      try {
        call.resolve(read(call.key))
      } catch (err) {
        call.reject(err)
      }
    }
  })
  const flush = () => {
    const batch = pending
    pending = []
    try {
      readAll(batch)
    } catch (err) {
      // BEGIN or COMMIT failed (the database was closed meanwhile, say): nobody was answered.
      for (const call of batch) call.reject(err)
    }
  }
  return (key) =>
    new Promise<V>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush)
      pending.push({ key, resolve, reject })
    })
}
