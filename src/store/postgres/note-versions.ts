// The versions of users' notes (migration 4, `note-versions`) for cached listings, read for many
// requests in one query. A cached listing costs the service one PostgreSQL round trip, and the
// round trip (the driver's work on both ends of it) was most of that listing's cost; under load
// many listings wait for one at the same moment, so one query answers all of them.
//
// Never stale: a request's version is read by a query sent after the request arrived (it never
// joins a query already under way), so that query's snapshot holds every write acknowledged
// before the request came in. https://www.postgresql.org/docs/current/transaction-iso.html
import type { Query } from './query.js'

/** A user's version from their note_versions rows (NULL when there are none); see migration 4. */
export const NOTE_VERSION = "string_agg(version::text, ',' ORDER BY shard)"

interface Waiter {
  resolve: (version: string | null) => void
  reject: (err: unknown) => void
}

export class NoteVersionReader {
  /** Users whose version the next query reads, each with the requests waiting for it. */
  private next = new Map<string, Waiter[]>()
  /** A query is under way or about to be sent: requests wait for the next one. */
  private busy = false

  constructor(private readonly query: Query) {}

  /** The version of the user's notes now; null when they have none (nothing may be cached). */
  read(userId: string): Promise<string | null> {
    return new Promise((resolve, reject) => {
      const waiting = this.next.get(userId)
      if (waiting) waiting.push({ resolve, reject })
      else this.next.set(userId, [{ resolve, reject }])
      if (!this.busy) {
        this.busy = true
        // Requests parsed in the same turn of the event loop share the first query.
        setImmediate(() => void this.send())
      }
    })
  }

  private async send(): Promise<void> {
    const batch = this.next
    this.next = new Map()
    try {
      const { rows } = await this.query<{ user_id: string; version: string }>(
        'notes.versions',
        `SELECT user_id, ${NOTE_VERSION} AS version
         FROM note_versions WHERE user_id = ANY($1::text[]) GROUP BY user_id`,
        [[...batch.keys()]],
      )
      const versions = new Map(rows.map((r) => [r.user_id, r.version]))
      for (const [userId, waiters] of batch) for (const w of waiters) w.resolve(versions.get(userId) ?? null)
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err)
    }
    // Requests that came in meanwhile waited for this query to end: send theirs at once.
    if (this.next.size > 0) void this.send()
    else this.busy = false
  }
}
