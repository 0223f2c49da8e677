// What the change bus cannot carry: writes made by no instance of this service (the operator's CLI, an import, SQL
// typed into psql or the sqlite3 shell) and those whose notice was lost. While live update streams are open, the
// process reads the versions of their accounts every WATCH_MS: the database's triggers move them in the transaction of
// every write, whoever makes it, and a read sees only what committed. An account whose notes version moved has its
// streams read the feed; one whose account version moved (a session ended, the account deleted) has them check their
// session past the cache. So every change reaches open streams within a second, by any path (docs/sync.md).
import type { StoreDriver, UserVersions } from '../store/driver.js'
import type { ChangeKind } from './change-bus/bus.js'

/** Between two reads: a change is seen within this, plus one read. */
export const WATCH_MS = 250

/** The driver's version reads (store/open.ts). */
export type VersionSource = Pick<StoreDriver, 'userVersions' | 'versionClock'>

/** What the watch asks of the streams (LiveStreams). */
export interface WatchedStreams {
  /** The accounts that hold a stream on this process now. */
  accounts(): Iterable<string>
  /** As a bus notice of this kind for the account would. */
  changed(kind: ChangeKind, userId: string): void
}

type Log = Record<'warn', (obj: object, msg: string) => void>

/** Starts watching; the result stops it. */
export function watchVersions(
  source: VersionSource,
  streams: WatchedStreams,
  log?: Log,
  everyMs = WATCH_MS,
): () => void {
  /** The versions each watched account had at the last read; an account seen for the first time is told once. */
  const known = new Map<string, UserVersions | undefined>()
  /** SQLite's version clock as read before the last read of versions: while it stands, nothing changed. */
  let clockBefore: string | undefined
  let failing = false
  let running = false
  const read = async () => {
    const ids = [...streams.accounts()]
    const watched = new Set(ids)
    for (const id of known.keys()) if (!watched.has(id)) known.delete(id)
    if (ids.length === 0) return
    const clock = source.versionClock ? await source.versionClock() : undefined
    if (clock !== undefined && clock === clockBefore && ids.every((id) => known.has(id))) return
    const now = await source.userVersions(ids)
    clockBefore = clock
    for (const id of ids) {
      const versions = now.get(id)
      const was = known.get(id)
      const first = !known.has(id)
      known.set(id, versions)
      // A first sighting is told too: a change between the stream's first read and this one would otherwise be missed.
      if (first || versions?.notes !== was?.notes) streams.changed('notes', id)
      if (first || versions?.account !== was?.account) streams.changed('sessions', id)
    }
  }
  const tick = () => {
    if (running) return
    running = true
    read()
      .then(
        () => {
          failing = false
        },
        (err: unknown) => {
          // Streams still read at their heartbeat; one warning per outage, not one per read.
          if (!failing)
            log?.warn(
              { err },
              'live update streams: reading account versions failed; changes made outside this service reach streams at their heartbeat until it works again',
            )
          failing = true
        },
      )
      .finally(() => {
        running = false
      })
  }
  const timer = setInterval(tick, everyMs).unref()
  return () => clearInterval(timer)
}
