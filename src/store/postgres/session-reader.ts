// The authenticate hook's lookup on PostgreSQL (Store.findSession): each request's session and
// its account, read for many requests in one query. A round trip, the driver's work on both
// ends of it, is most of what one lookup costs the service; under load many requests wait for
// their session at the same moment, so one query answers all of them (as note-versions.ts does
// for listing versions). Nothing is kept between queries.
//
// Never stale: a request's session is read by a query sent after the request arrived (it never
// joins a query already under way), so that query's snapshot holds every session ended and
// every account deleted before the request came in, on any instance.
// https://www.postgresql.org/docs/current/transaction-iso.html#XACT-READ-COMMITTED
import type { SessionOfAccount } from '../types.js'
import type { Query } from './query.js'
import { type UserRow, decodeText, userFromRow } from './rows.js'

/** A session's columns under s_ names beside its account's columns. */
type SessionWithUserRow = UserRow & { s_id: string; s_created_on: string; s_last_used_on: string; s_client: string }

interface Waiter {
  resolve: (found: SessionOfAccount | undefined) => void
  reject: (err: unknown) => void
}

export class SessionReader {
  /** Sessions the next query reads, each with the requests waiting for it. */
  private next = new Map<string, Waiter[]>()
  /** A query is under way or about to be sent: requests wait for the next one. */
  private busy = false

  constructor(private readonly query: Query) {}

  /** The session with this id and its account, as stored now; undefined when either is gone. */
  read(sessionId: string): Promise<SessionOfAccount | undefined> {
    return new Promise((resolve, reject) => {
      const waiting = this.next.get(sessionId)
      if (waiting) waiting.push({ resolve, reject })
      else this.next.set(sessionId, [{ resolve, reject }])
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
      // Each id by the sessions primary key, each account by the users primary key.
      const { rows } = await this.query<SessionWithUserRow>(
        'sessions.withUsers',
        `SELECT u.*, s.id AS s_id, s.created_on AS s_created_on, s.last_used_on AS s_last_used_on, s.client AS s_client
         FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = ANY($1::text[])`,
        [[...batch.keys()]],
      )
      const found = new Map(rows.map((row) => [row.s_id, row]))
      for (const [sessionId, waiters] of batch) {
        const row = found.get(sessionId)
        for (const w of waiters) w.resolve(row && sessionOfAccount(row))
      }
    } catch (err) {
      for (const waiters of batch.values()) for (const w of waiters) w.reject(err)
    }
    // Requests that came in meanwhile waited for this query to end: send theirs at once.
    if (this.next.size > 0) void this.send()
    else this.busy = false
  }
}

/** A row as the record pair; each waiter gets records of its own. */
function sessionOfAccount(row: SessionWithUserRow): SessionOfAccount {
  const session = { _id: row.s_id, userId: row.id, createdOn: row.s_created_on, lastUsedOn: row.s_last_used_on, client: decodeText(row.s_client) }
  return { session, user: userFromRow(row) }
}
